"""Leaderboard queries: one row per bot of a game with its ladder version and that version's rating.

Rated rows come first by Elo (rank = position among them, kept across pages), unrated rows last without a rank.
Each call runs a constant number of queries whatever the ladder's size: the ladder version is denormalised on
`Bot.active_version`, so a page is one indexed join, never a scan of versions or games.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import F, QuerySet

from league.arena.models import Bot, BotVersion, Rating


@dataclass(frozen=True)
class LadderRow:
    rank: int | None
    bot: Bot
    version: BotVersion
    rating: Rating | None


@dataclass(frozen=True)
class LeaderboardPage:
    rows: list[LadderRow]
    number: int
    num_pages: int
    count: int
    per_page: int

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def start_index(self) -> int:
        """The position (1-based) of the page's first row on the whole board; 0 on an empty board."""
        return (self.number - 1) * self.per_page + 1 if self.rows else 0


def ranked(game: str) -> QuerySet[Bot]:
    """The game's ladder bots in leaderboard order, with owner, version and rating joined in."""
    return (
        Bot.objects.on_ladder()
        .filter(game=game)
        .select_related("owner", "active_version", "active_version__rating")
        .order_by(F("active_version__rating__elo").desc(nulls_last=True), "owner__username", "name", "pk")
    )


def _rows(bots: list[Bot], first_position: int) -> list[LadderRow]:
    rows = []
    for position, bot in enumerate(bots, start=first_position):
        version = bot.active_version
        rating = getattr(version, "rating", None)  # the reverse one-to-one raises when there is none
        rows.append(LadderRow(position if rating is not None else None, bot, version, rating))
    return rows


def leaderboard_page(game: str, page: int | str | None, per_page: int = 50) -> LeaderboardPage:
    """Page `page` (1-based; a bad or out-of-range number gives the first or last page) of the game's board."""
    paginator = Paginator(ranked(game), per_page)
    current = paginator.get_page(page)
    return LeaderboardPage(
        rows=_rows(list(current.object_list), current.start_index() or 1),
        number=current.number,
        num_pages=paginator.num_pages,
        count=paginator.count,
        per_page=per_page,
    )


def top(game: str, n: int) -> list[LadderRow]:
    """The first `n` rows of the game's board (the home page's summary)."""
    return _rows(list(ranked(game)[:n]), 1)
