"""A bot's page: its rating and rank, rating history chart, recent games, head-to-head record, win rate by seat,
and for its owner the validation games of its versions.

Every part reads aggregates or walks an index for one page of rows, so the page runs the same queries for a bot
with three games as for one with hundreds of thousands (tests/league/test_query_counts.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Prefetch, Sum
from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from league.arena.coop import bot_results as coop_results
from league.arena.ladder import forfeits, leaderboards
from league.arena.lib import caching
from league.arena.models import (
    COMPETITIVE_GAMES,
    FORFEITS,
    Bot,
    BotVersion,
    ForfeitCount,
    Game,
    GameSeat,
    Match,
    MatchEntry,
    PairResult,
    Rating,
    SeatResult,
)
from league.arena.profiles import rating_chart
from league.arena.web.decorators import sees_private

VERSIONS_SHOWN = 50
GAMES_PER_PAGE = 25
GAME_PAGES = 40  # the newest 1,000 games are paged; older ones stay in the matches and the API
OPPONENTS_PER_PAGE = 25
VALIDATED_VERSIONS = 10  # the owner sees the validation games of this many newest versions

FORFEIT_WORDS = {
    "illegal-turn": "made an illegal turn",
    "command-broken": "broke a command",
    "timeout": "ran out of time",
    "crash": "crashed",
    "protocol-error": "broke the protocol",
    "resource-limit": "hit a resource limit",
    "sandbox-violation": "ran while held between its turns",
}


# --- Parameters -------------------------------------------------------------------------------------------------


def page_param(request: HttpRequest, name: str, last: int | None = None) -> int:
    """The ?name= page number (1 when absent); anything but a whole number from 1 (to `last`) is a 404."""
    raw = request.GET.get(name, "1")
    try:
        number = int(raw)
    except ValueError:
        raise Http404(f"{name}={raw[:20]!r} is not a page number") from None
    if number < 1 or (last is not None and number > last):
        raise Http404(f"{name}={number} is not a page shown here")
    return number


def link(request: HttpRequest, anchor: str, **changes: int | None) -> str:
    """This page's query string with some parameters changed (None or page 1 drops one), and an anchor."""
    params = dict(request.GET.items())
    for key, value in changes.items():
        if value is None or value == 1:
            params.pop(key, None)
        else:
            params[key] = str(value)
    return ("?" + urlencode(params) if params else request.path) + f"#{anchor}"


# --- Versions and their validation games ------------------------------------------------------------------------


@dataclass
class ValidationGame:
    game: Game
    version: BotVersion
    seat: int
    words: str
    failed_here: bool
    opponent: str = ""

    @property
    def what(self) -> str:
        """What the bot did wrong, in words ("crashed"), for a game it forfeited."""
        return FORFEIT_WORDS.get(self.game.termination, self.game.termination)


@dataclass
class Failure:
    version: BotVersion
    game: ValidationGame | None
    of: int  # how many games the match it failed in had

    @property
    def stderr_repeats_message(self) -> bool:
        """True when the game's message is already all in the stderr tail shown below it (a traceback, say)."""
        detail = self.game.game.detail.strip() if self.game is not None else ""
        return bool(detail) and detail in self.version.stderr_tail


def _validation_games(versions: list[BotVersion]) -> list[ValidationGame]:
    by_id = {version.pk: version for version in versions}
    games = (
        Game.objects.filter(match__kind=Match.Kind.VALIDATION, match__entries__index=0)
        .filter(match__entries__version_id__in=list(by_id))
        .defer("log_zlib")
        .prefetch_related(Prefetch("seats", queryset=GameSeat.objects.select_related("version__bot__owner")))
        .order_by("-match_id", "index")
    )
    shown = []
    first_forfeit: dict[int, ValidationGame] = {}
    for game in games:
        seats = list(game.seats.all())
        mine = [seat for seat in seats if seat.version_id in by_id]
        if not mine:
            continue
        seat = mine[0].seat
        others = [s.version.bot.full_name for s in seats if s.seat != seat]
        words = result_in_words(game, seat, others[0] if others else "its opponent")
        row = ValidationGame(game, by_id[mine[0].version_id], seat, words, False, others[0] if others else "")
        if game.termination in FORFEITS and game.fault_seat == seat:
            # the game its verdict names: its first forfeit (max_failures=1 forfeits the rest of that match at once)
            earlier = first_forfeit.get(row.version.pk)
            if earlier is None or _played_order(game) < _played_order(earlier.game):
                first_forfeit[row.version.pk] = row
        shown.append(row)
    for row in first_forfeit.values():
        row.failed_here = True
    return shown


def _played_order(game: Game) -> tuple:
    return (game.played_at, game.match_id, game.index)


def _failures(versions: list[BotVersion], validation: list[ValidationGame]) -> list[Failure]:
    games_of: dict[int, list[ValidationGame]] = defaultdict(list)
    for row in validation:
        games_of[row.version.pk].append(row)
    failures = []
    for version in versions:
        if version.status != BotVersion.Status.FAILED:
            continue
        played = games_of.get(version.pk, [])
        failing = next((row for row in played if row.failed_here), None)
        of = sum(1 for row in played if failing is not None and row.game.match_id == failing.game.match_id)
        failures.append(Failure(version, failing, of))
    return failures


def newest_versions(bot: Bot) -> tuple[list[BotVersion], int]:
    """The bot's newest VERSIONS_SHOWN versions, and how many older ones are not shown."""
    versions = list(bot.versions.order_by("-number")[: VERSIONS_SHOWN + 1])
    if len(versions) <= VERSIONS_SHOWN:
        return versions, 0
    return versions[:VERSIONS_SHOWN], bot.versions.count() - VERSIONS_SHOWN


def versions_context(request: HttpRequest, bot: Bot) -> dict:
    """The versions table (polled while a version is validated) and, for the owner and staff, the validations."""
    versions, older = newest_versions(bot)
    is_owner = bot.owner_id == request.user.pk
    private = sees_private(request.user, bot.owner_id)
    validation = _validation_games(versions[:VALIDATED_VERSIONS]) if private else []
    return {
        "bot": bot,
        "versions": versions,
        "older": older,
        "is_owner": is_owner,
        "sees_private": private,
        "validating": any(v.status == BotVersion.Status.VALIDATING for v in versions),
        "validation_games": validation,
        "failures": _failures(versions[:VALIDATED_VERSIONS], validation) if private else [],
    }


# --- Failure rates by kind ---------------------------------------------------------------------------------------

FAILURE_KINDS = (  # (column, the terminations it counts)
    ("illegal turn", ("illegal-turn", "command-broken")),
    ("timeout", ("timeout",)),
    ("crash", ("crash",)),
    ("protocol error", ("protocol-error",)),
    ("other", ("resource-limit", "sandbox-violation")),
)
FAILURE_VERSIONS = 10  # the newest versions whose failure rates the page shows


@dataclass
class FailureCell:
    count: int
    rate: float  # a share of the version's games
    examples: list[int]  # game ids: the newest and the oldest such game

    @property
    def percent(self) -> str:
        return f"{100 * self.rate:.1f}"


@dataclass
class FailureRow:
    version_label: str
    games: int
    cells: list[FailureCell]

    @property
    def forfeits(self) -> int:
        return sum(cell.count for cell in self.cells)


def failure_rates(numbers: dict[int, int], game: str, seat_games: dict[int, int]) -> list[FailureRow]:
    """Each of the bot's newest versions that played (`numbers`: the bot's version ids and numbers): its games of
    `game` but validation, and the share it forfeited by kind (the game's fault seat is its own), with the newest and
    oldest such game as examples. Counts kept on store (`ForfeitCount`), not a count over every game; in a
    competitive game the games are `seat_games` (`seat_records`: a game against itself counts once a seat), in a
    co-op game those of its match entries (a team may seat one version more than once)."""
    versions = sorted(numbers.items(), key=lambda item: -item[1])[:FAILURE_VERSIONS]
    if not versions:
        return []
    ids = [pk for pk, _ in versions]
    if game in COMPETITIVE_GAMES:
        totals = seat_games
    else:
        # A match's entry of a version holds its games there (a team seating the version twice has one such
        # entry): a row a match, where counting the seats read a row a seat and looked up each game's match.
        entries = MatchEntry.objects.filter(version_id__in=ids).exclude(match__kind=Match.Kind.VALIDATION)
        totals = dict(entries.values("version_id").annotate(n=Sum("games")).values_list("version_id", "n"))
    by_kind = {
        (version, termination): (games, newest, oldest)
        for version, termination, games, newest, oldest in ForfeitCount.objects.filter(version_id__in=ids).values_list(
            "version_id", "termination", "games", "newest_game", "oldest_game"
        )
    }
    rows = []
    for pk, number in versions:
        games = totals.get(pk, 0)
        if not games:
            continue
        cells = []
        for _, terminations in FAILURE_KINDS:
            found = [by_kind[(pk, t)] for t in terminations if (pk, t) in by_kind]
            count = sum(n for n, _, _ in found)
            examples = sorted({game_id for _, *ends in found for game_id in ends}, reverse=True)[:2]
            cells.append(FailureCell(count, count / games, examples))
        rows.append(FailureRow(f"v{number}", games, cells))
    return rows


# --- Rating, rank, history --------------------------------------------------------------------------------------


@dataclass
class Standing:
    version: BotVersion
    rating: Rating | None
    rank: int | None
    ladder_size: int | None = None


def standing(bot: Bot) -> Standing | None:
    """The active version's rating and its rank as the ladder ranks it (`ladder.leaderboards.rank_of`).

    The rank is counted in a query of its own, with the Elo as a constant: the planner then walks the (game, Elo)
    index from that Elo up, so a top bot's rank costs a few rows; counted in a subquery correlated with the rating
    row, it scanned the whole ladder's ratings whatever the Elo.
    """
    if bot.active_version_id is None:
        return None
    rating = Rating.objects.filter(version_id=bot.active_version_id).select_related("version").first()
    if rating is None:
        return Standing(bot.active_version, None, None)
    return Standing(rating.version, rating, leaderboards.rank_of(rating.game, rating.elo))


# --- Games ------------------------------------------------------------------------------------------------------


def result_in_words(game: Game, seat: int, opponent: str) -> str:
    """The game's result for the bot in `seat`, and how it came about, naming the opponent."""
    if game.winner_seat is None:
        return "draw"
    won = game.winner_seat == seat
    if game.termination in FORFEITS:
        what = FORFEIT_WORDS.get(game.termination, game.termination)
        return f"won: {opponent} {what}" if won else f"lost: {what}"
    if game.termination == "stuck":
        return f"won: {opponent} was stuck" if won else "lost: was stuck"
    if game.termination == "all-cards-played":
        return "won: played all its cards" if won else f"lost: {opponent} played all its cards"
    return f"{'won' if won else 'lost'} ({game.termination})"


def _newest_game_ids(played: list[int], opponents: list[int] | None, limit: int, offset: int) -> list[int]:
    """Ids of the versions' newest games but validations, `limit` from `offset`, newest first.

    One branch per version, each walking that version's (version, game) index backwards and stopping after
    offset + limit rows, so the cost follows the page, not the bot's history; a join over all the versions at
    once would sort every game they played.
    """
    seat = GameSeat._meta.db_table
    game = Game._meta.db_table
    match = Match._meta.db_table
    against = ""
    against_params: list[int] = []
    if opponents is not None:
        marks = ", ".join(["%s"] * len(opponents))
        against = (
            f" AND EXISTS (SELECT 1 FROM {seat} o WHERE o.game_id = s.game_id AND o.seat <> s.seat"
            f" AND o.version_id IN ({marks}))"
        )
        against_params = list(opponents)
    branch = (
        f"SELECT game_id FROM (SELECT s.game_id FROM {seat} s JOIN {game} g ON g.id = s.game_id "
        f"JOIN {match} m ON m.id = g.match_id WHERE s.version_id = %s AND m.kind <> %s{against} "
        f"ORDER BY s.game_id DESC LIMIT %s) AS v{{k}}"
    )
    sql = " UNION ALL ".join(branch.format(k=k) for k in range(len(played)))
    sql += " ORDER BY game_id DESC LIMIT %s OFFSET %s"
    params: list = []
    for version in played:
        params += [version, Match.Kind.VALIDATION, *against_params, offset + limit]
    params += [limit, offset]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


RECENT_GAME_FIELDS = (  # what _bot_games.html and result_in_words read of a page's seats
    "game_id", "seat", "version_id",
    "game__match_id", "game__termination", "game__winner_seat", "game__played_at", "game__match__kind",
    "version__bot_id", "version__number",
    "version__bot__name", "version__bot__owner_id", "version__bot__owner__username",
)  # fmt: skip


@dataclass
class GameRow:
    game: Game
    version: BotVersion
    seat: int
    opponent: Bot | None
    words: str

    @property
    def outcome(self) -> str:
        return self.words.split(":")[0].split(" (")[0]


@dataclass
class GamesPage:
    rows: list[GameRow]
    number: int
    has_next: bool
    versus: Bot | None = None


def recent_games(bot: Bot, played: list[int], number: int, versus: Bot | None) -> GamesPage:
    opponents = None
    if versus is not None:
        opponents = list(versus.versions.values_list("pk", flat=True))
    if not played or opponents == []:
        return GamesPage([], number, False, versus)
    offset = (number - 1) * GAMES_PER_PAGE
    ids = _newest_game_ids(played, opponents, GAMES_PER_PAGE + 1, offset)
    has_next = len(ids) > GAMES_PER_PAGE and number < GAME_PAGES
    ids = ids[:GAMES_PER_PAGE]
    # One query: every seat of the page's games, with its game, match and bot, each only with what the table shows.
    seated: dict[int, list[GameSeat]] = defaultdict(list)
    seats = (
        GameSeat.objects.filter(game_id__in=ids)
        .select_related("game__match", "version__bot__owner")
        .only(*RECENT_GAME_FIELDS)
        .order_by("-game_id", "seat")
    )
    for seat in seats:
        seated[seat.game_id].append(seat)
    rows = []
    for game_seats in seated.values():
        mine = next(s for s in game_seats if s.version.bot_id == bot.pk)
        other = next((s for s in game_seats if s.seat != mine.seat), None)
        opponent = other.version.bot if other else None
        # The opponent is named (and linked) in its own column.
        words = result_in_words(mine.game, mine.seat, "the opponent")
        rows.append(GameRow(mine.game, mine.version, mine.seat, opponent, words))
    return GamesPage(rows, number, has_next, versus)


# --- Head to head and seats -------------------------------------------------------------------------------------


@dataclass
class Opponent:
    bot: Bot
    wins: int
    losses: int
    draws: int
    last_played: datetime

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score_percent(self) -> float:
        return 100.0 * (self.wins + self.draws / 2) / self.games if self.games else 0.0


@dataclass
class OpponentsPage:
    rows: list[Opponent]
    number: int
    num_pages: int
    count: int


def head_to_head(bot: Bot, mine: list[int], number: int) -> OpponentsPage:
    """Rated results against every other bot, from the pair counts, most games first (one query a page)."""
    if not mine:
        return OpponentsPage([], 1, 1, 0)
    pair, version = PairResult._meta.db_table, BotVersion._meta.db_table
    marks = ", ".join(["%s"] * len(mine))
    sql = (
        "SELECT opponent, SUM(w), SUM(l), SUM(d), MAX(last), COUNT(*) OVER () FROM ("
        f"SELECT v.bot_id AS opponent, p.first_wins AS w, p.second_wins AS l, p.draws AS d, p.last_played AS last "
        f"FROM {pair} p JOIN {version} v ON v.id = p.second_id WHERE p.first_id IN ({marks}) AND v.bot_id <> %s "
        "UNION ALL "
        f"SELECT v.bot_id, p.second_wins, p.first_wins, p.draws, p.last_played "
        f"FROM {pair} p JOIN {version} v ON v.id = p.first_id WHERE p.second_id IN ({marks}) AND v.bot_id <> %s"
        ") AS t GROUP BY opponent ORDER BY SUM(w) + SUM(l) + SUM(d) DESC, opponent LIMIT %s OFFSET %s"
    )
    params = [*mine, bot.pk, *mine, bot.pk, OPPONENTS_PER_PAGE, (number - 1) * OPPONENTS_PER_PAGE]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    if not found:
        if number > 1:
            raise Http404(f"opponents={number} is past the last page")
        return OpponentsPage([], 1, 1, 0)
    count = found[0][5]
    bots = Bot.objects.select_related("owner").in_bulk([row[0] for row in found])
    rows = [Opponent(bots[row[0]], int(row[1]), int(row[2]), int(row[3]), _moment(row[4])) for row in found]
    return OpponentsPage(rows, number, -(-count // OPPONENTS_PER_PAGE), count)


def _moment(value: datetime | str | None) -> datetime | None:
    """A timestamp from raw SQL: SQLite gives MAX() of a datetime column as its text, in UTC without a zone."""
    if not isinstance(value, str):
        return value
    moment = parse_datetime(value)
    return moment if moment is None or timezone.is_aware(moment) else timezone.make_aware(moment, UTC)


@dataclass
class SeatRecord:
    seat: int
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def win_percent(self) -> float | None:
        return 100.0 * self.wins / self.games if self.games else None


def seat_records(bot: Bot) -> tuple[list[SeatRecord], dict[int, int]]:
    """The bot's results by seat over all its versions, and the games of each version that played any (one query)."""
    records = {0: SeatRecord(0), 1: SeatRecord(1)}
    games: dict[int, int] = defaultdict(int)
    for row in SeatResult.objects.filter(version__bot=bot).order_by():
        record = records.setdefault(row.seat, SeatRecord(row.seat))
        record.games += row.games
        record.wins += row.wins
        record.losses += row.losses
        record.draws += row.draws
        if row.games:
            games[row.version_id] += row.games
    return [records[seat] for seat in sorted(records)], dict(games)


# --- The page ---------------------------------------------------------------------------------------------------


def _versus(request: HttpRequest) -> Bot | None:
    raw = request.GET.get("vs")
    if raw is None:
        return None
    try:
        return Bot.objects.select_related("owner").get(pk=int(raw))
    except (ValueError, Bot.DoesNotExist):
        raise Http404(f"vs={raw[:20]!r} is no bot") from None


def _opponents_links(opponents: OpponentsPage) -> dict:
    links = {}
    if opponents.number > 1:
        previous = opponents.number - 1
        links["previous_opponents"] = (f"?opponents={previous}" if previous > 1 else "?") + "#opponents"
    if opponents.number < opponents.num_pages:
        links["next_opponents"] = f"?opponents={opponents.number + 1}#opponents"
    return links


def page_context(request: HttpRequest, bot: Bot) -> dict:
    """Everything bot.html shows, each part bounded by a page whatever the bot's history.

    The rating, its history and the head-to-head record change only when a refit stores ratings (rated games
    are counted in the pairs just before their refit), so they are cached until the leaderboard changes.
    """
    context = versions_context(request, bot)
    numbers: dict[int, int] = {}

    def version_numbers() -> dict[int, int]:
        if not numbers:
            numbers.update(bot.versions.values_list("pk", "number"))
        return numbers

    def rating_part() -> str:
        part = {
            "bot": bot,
            "standing": standing(bot),
            "chart": rating_chart.history(version_numbers(), bot.active_version_id),
        }
        part["pause_examples"] = forfeits.examples(bot)
        part["failure_rows"] = failure_rates(version_numbers(), bot.game, seat_games)
        part["failure_kinds"] = [name for name, _ in FAILURE_KINDS]
        return render_to_string("arena/_bot_rating.html", part)

    opponents_number = page_param(request, "opponents")

    def opponents_part() -> str:
        opponents = head_to_head(bot, list(version_numbers()), opponents_number)
        return render_to_string("arena/_head_to_head.html", {"opponents": opponents, **_opponents_links(opponents)})

    scope = caching.leaderboard_scope(bot.game)
    seats, seat_games = seat_records(bot)
    played = sorted(seat_games)
    games_number = page_param(request, "games", GAME_PAGES)
    versus = _versus(request)
    games = recent_games(bot, played, games_number, versus)
    context.update(
        coop=coop_results.season_results(bot),
        rating=caching.fragment(f"bot-rating:{bot.pk}", scope, rating_part),
        opponents=caching.fragment(f"bot-opponents:{bot.pk}:{opponents_number}", scope, opponents_part),
        seats=seats,
        games=games,
        newer_games=link(request, "games", games=games_number - 1) if games_number > 1 else None,
        older_games=link(request, "games", games=games_number + 1) if games.has_next else None,
        all_games=link(request, "games", vs=None, games=None) if versus else None,
    )
    return context
