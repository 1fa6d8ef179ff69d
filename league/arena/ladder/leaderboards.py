"""Leaderboard queries: one row per bot of a game with its ladder version and that version's rating.

Rated rows come first by Elo, unrated rows last without a rank. A rank is 1 + the rated ladder bots with a higher
Elo (`rank_of`, the one rule the ladder, the bot pages, the owners' pages and the API apply): bots tied on Elo share
a rank, and the next one skips as many places ("1, 2, 2, 4"), on every page of the board.

Each row also says whether its version is provisional (`Rating.provisional`: too few games or too wide an interval)
and whether its 95 % interval is clear of the row above (`separated`: False when they overlap, so the order of the
two is not settled; None for the first rated row and unrated rows). Each call runs a constant number of queries
whatever the ladder's size: the ladder version is denormalised on `Bot.active_version`, so a page is a count and
an indexed join (`Board`: it also reads the row above the page; after the first page, one count gives its first
row's rank), never a scan of versions or games.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import F, QuerySet

from league.arena.models import Bot, BotVersion, Rating

# Ratings closer than this are one rating (a fit is exact to ~1e-12 Elo): two bots whose records mirror each other
# get the same rank whatever the last bits of their Elo.
TIE_ELO = 1e-6


@dataclass(frozen=True)
class LadderRow:
    rank: int | None
    bot: Bot
    version: BotVersion
    rating: Rating | None
    separated: bool | None = None  # whether its 95 % interval is clear of the rated row above; None if none is

    @property
    def provisional(self) -> bool:
        return self.rating is not None and self.rating.provisional


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


class Board:
    """The game's ladder bots in leaderboard order (by Elo, then owner, name and id; unrated ones last), with owner,
    version and rating joined in, sliced as a list. Two queries rather than one: the rated bots in the order of
    the ratings' (game, Elo) index, then the unrated ones; one query over the whole board sorts every row to take
    one page (~60 ms for the first page of 10,000 bots), this one reads the index from the top."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = Bot.objects.on_ladder().filter(game=self.game).count()
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, where: slice) -> list[Bot]:
        if where.step not in (None, 1) or where.stop is None or (where.start or 0) < 0 or where.stop < 0:
            raise ValueError("a board is read in consecutive rows from a start to a stop, counted from the top")
        start, stop = where.start or 0, where.stop
        if stop <= start:
            return []
        bots = list(self._rated()[start:stop])
        if len(bots) == stop - start:
            return bots
        # Past the rated rows: the unrated ones follow them (counting the rated only when the slice starts past them).
        rated = start + len(bots) if bots or not start else self._rated().count()
        return bots + list(self._unrated()[max(start - rated, 0) : stop - rated])

    def _ladder(self) -> QuerySet[Bot]:
        return (
            Bot.objects.on_ladder()
            .filter(game=self.game)
            .select_related("owner", "active_version", "active_version__rating")
        )

    def _rated(self) -> QuerySet[Bot]:
        # Descending without NULLS LAST, as the (game, elo DESC) index is ordered; rated rows have an Elo.
        return (
            self._ladder()
            .filter(active_version__rating__game=self.game)
            .order_by(F("active_version__rating__elo").desc(), "owner__username", "name", "pk")
        )

    def _unrated(self) -> QuerySet[Bot]:
        return self._ladder().filter(active_version__rating__isnull=True).order_by("owner__username", "name", "pk")


def higher_ratings(game: str, elo: float) -> QuerySet[Rating]:
    """The ratings of the game's ladder versions that rank above `elo`."""
    return Rating.objects.filter(game=game, elo__gt=elo + TIE_ELO, version__in=BotVersion.objects.on_ladder())


def rank_of(game: str, elo: float) -> int:
    """The rank of a ladder version rated `elo`: 1 + the ladder versions rated higher (ties share a rank)."""
    return higher_ratings(game, elo).count() + 1


def _rows(game: str, bots: list[Bot], first_position: int, above: Bot | None) -> list[LadderRow]:
    """The rows of `bots`, the board's rows from `first_position` on; `above` is the row before them, if any."""
    rows = []
    previous = _rating(above) if above is not None else None
    rank = None
    for position, bot in enumerate(bots, start=first_position):
        rating = _rating(bot)
        if rating is None:
            rows.append(LadderRow(None, bot, bot.active_version, None))
            continue
        if rank is None and previous is not None:
            rank = rank_of(game, rating.elo)  # a page's first rated row may be tied with the page before
        elif rank is None or previous.elo - rating.elo > TIE_ELO:
            rank = position
        separated = None if previous is None else rating.high < previous.low
        rows.append(LadderRow(rank, bot, bot.active_version, rating, separated))
        previous = rating
    return rows


def _rating(bot: Bot) -> Rating | None:
    return getattr(bot.active_version, "rating", None)  # the reverse one-to-one raises when there is none


def leaderboard_page(game: str, page: int | str | None, per_page: int = 50) -> LeaderboardPage:
    """Page `page` (1-based; a bad or out-of-range number gives the first or last page) of the game's board."""
    board = Board(game)
    paginator = Paginator(board, per_page)
    try:  # as Paginator.get_page, which would also read the page's rows
        number = paginator.validate_number(page)
    except PageNotAnInteger:
        number = 1
    except EmptyPage:
        number = paginator.num_pages
    first = (number - 1) * per_page + 1
    # The page's rows and, after the first page, the row above them.
    bots = board[max(first - 2, 0) : first - 1 + per_page]
    above = bots.pop(0) if first > 1 and bots else None
    return LeaderboardPage(
        rows=_rows(game, bots, first, above),
        number=number,
        num_pages=paginator.num_pages,
        count=paginator.count,
        per_page=per_page,
    )


def top(game: str, n: int) -> list[LadderRow]:
    """The first `n` rows of the game's board (the home page's summary)."""
    return _rows(game, Board(game)[:n], 1, None)
