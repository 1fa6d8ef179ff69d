"""Co-op leaderboards: one row per ladder bot of a co-op game on one season's ladder of one team size.

Each row shows the bot's ladder version (`Bot.active_version`) with that version's standing on the season (win rate
with its 95% Wilson interval, mean and median cards left, histogram, deals played) and its Elo from the duplicate
comparisons. Rated rows come first by Elo (rank kept across pages), unrated rows last. A page is two queries
whatever the ladder's size: the standing and the rating are joined to the bot row, never computed from games.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import F, FilteredRelation, Q, QuerySet

from league.arena.coop.results import Figures
from league.arena.ladder.leaderboards import LeaderboardPage
from league.arena.models import Bot, BotVersion, DealResult, Season

# The histogram's bars: (first, last) cards left, inclusive. Finer where good bots end.
BINS = ((0, 0), (1, 4), (5, 9), (10, 19), (20, 29), (30, 49), (50, 98))
BAR_HEIGHT = 20


@dataclass(frozen=True)
class Bar:
    label: str
    count: int
    height: float  # in the SVG's units, BAR_HEIGHT for the tallest bar
    x: int
    y: float


@dataclass(frozen=True)
class Rating:
    elo: float
    low: float
    high: float
    comparisons: int

    @property
    def margin(self) -> float:
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class CoopRow:
    rank: int | None
    bot: Bot
    version: BotVersion
    rating: Rating | None
    figures: Figures | None

    @property
    def bars(self) -> list[Bar]:
        return bars(self.figures.histogram) if self.figures else []


def bars(histogram: list[int]) -> list[Bar]:
    counts = [sum(histogram[first : last + 1]) for first, last in BINS]
    tallest = max(counts) or 1
    shown = []
    for index, ((first, last), count) in enumerate(zip(BINS, counts, strict=True)):
        label = str(first) if first == last else f"{first}–{last}"
        height = BAR_HEIGHT * count / tallest
        shown.append(Bar(label, count, round(height, 1), index * 8, round(BAR_HEIGHT - height, 1)))
    return shown


def _on_ladder(relation: str, season: Season, players: int) -> FilteredRelation:
    return FilteredRelation(relation, condition=Q(**{f"{relation}__season": season, f"{relation}__players": players}))


def ranked(season: Season, players: int) -> QuerySet[Bot]:
    """The season's game's ladder bots in leaderboard order, with standing and rating joined in."""
    return (
        Bot.objects.on_ladder()
        .filter(game=season.game)
        .annotate(
            standing=_on_ladder("active_version__season_standings", season, players),
            rated=_on_ladder("active_version__season_ratings", season, players),
        )
        .annotate(
            s_deals=F("standing__deals"),
            s_wins=F("standing__wins"),
            s_cards=F("standing__cards_left"),
            s_histogram=F("standing__histogram"),
            r_elo=F("rated__elo"),
            r_low=F("rated__low"),
            r_high=F("rated__high"),
            r_comparisons=F("rated__comparisons"),
        )
        .select_related("owner", "active_version")
        .order_by(F("r_elo").desc(nulls_last=True), F("s_deals").desc(nulls_last=True), "owner__username", "name")
    )


def _rows(bots: list[Bot], first_position: int) -> list[CoopRow]:
    rows = []
    for position, bot in enumerate(bots, start=first_position):
        rating = None
        if bot.r_elo is not None:
            rating = Rating(bot.r_elo, bot.r_low, bot.r_high, bot.r_comparisons)
        figures = None
        if bot.s_deals:
            figures = Figures(bot.s_deals, bot.s_wins, bot.s_cards, bot.s_histogram)
        rows.append(CoopRow(position if rating else None, bot, bot.active_version, rating, figures))
    return rows


def leaderboard_page(season: Season, players: int, page: int | str | None, per_page: int = 50) -> LeaderboardPage:
    """Page `page` (1-based; out of range gives the first or last page) of the season's `players`-seat board."""
    paginator = Paginator(ranked(season, players), per_page)
    current = paginator.get_page(page)
    return LeaderboardPage(
        rows=_rows(list(current.object_list), current.start_index() or 1),
        number=current.number,
        num_pages=paginator.num_pages,
        count=paginator.count,
        per_page=per_page,
    )


@dataclass(frozen=True)
class DealRow:
    players: int
    bot: Bot
    version: BotVersion
    cards_left: int
    game_id: int
    active: bool


def deal_results(season: Season, deal: int) -> list[DealRow]:
    """Every version's result on one deal of the season, best first within each team size."""
    rows = (
        # The team sizes let the (season, players, deal) index find the deal directly, not scan the whole season.
        DealResult.objects.filter(season=season, players__in=season.team_sizes, deal=deal)
        .select_related("version__bot__owner")
        .order_by("players", "cards_left", "version__bot__owner__username", "version__bot__name", "-version__number")
    )
    return [
        DealRow(
            row.players,
            row.version.bot,
            row.version,
            row.cards_left,
            row.game_id,
            row.version.bot.active_version_id == row.version_id,
        )
        for row in rows
    ]
