"""Storing a match's games together with the aggregates every reader uses instead of the games.

`save_games` writes the games, their seats, what the bots wrote in each turn (`GameOutput`, private), each entry's
results (`MatchEntry` wins/losses/draws/points), for rated competitive matches the per-pair counts (`PairResult`),
for competitive matches but validations each version's results by seat (`SeatResult`), and for every match but a
validation each version's forfeits by kind (`ForfeitCount`) in the caller's transaction, so the aggregates are never
out of step with the games. `rebuild` recomputes every aggregate from the stored games (the
`rebuild_results` management command), the co-op challenge results too, and must give exactly what the stores kept.

Concurrent workers storing matches on PostgreSQL must not deadlock: the only rows two of them can both write are
`PairResult`, `SeatResult` and `ForfeitCount` rows (their own match and entries are theirs alone), and those are
written by one INSERT ... ON CONFLICT DO UPDATE per table whose rows are sorted by key, pairs, then seats, then
forfeits, so every transaction takes them in the same order.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.db import connection, transaction
from django.db.models import Aggregate, Count, F, Max, Min, Model, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce

from bots.reply_bounds import storable_text
from league.arena.lib import stalls
from league.arena.models import (
    COMPETITIVE_GAMES,
    FORFEITS,
    BotVersion,
    ForfeitCount,
    Game,
    GameOutput,
    GameSeat,
    Match,
    MatchEntry,
    PairResult,
    SeatResult,
)
from league.arena.play import seals

STDERR_TAIL_CHARS = 4000


class PlayedGame(Protocol):
    """What the runner reports for one game (`bots.match.GameResult` has this shape)."""

    index: int
    log: dict[str, Any]
    outcome: Any  # games.Outcome
    seat_bots: list[int]
    turn_output: list[dict[str, Any]]  # what the bots wrote in each turn and their think times (private)


@dataclass(frozen=True)
class PairKey:
    game: str
    first: int
    second: int


@dataclass
class PairCounts:
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    last_played: datetime | None = None

    def add(self, winner: int | None, played_at: datetime) -> None:
        if winner == 0:
            self.first_wins += 1
        elif winner == 1:
            self.second_wins += 1
        else:
            self.draws += 1
        if self.last_played is None or played_at > self.last_played:
            self.last_played = played_at


def points(game_id: str, winner: int | None, seat: int) -> float | None:
    """A seat's points in a game: 1 for a win, 0 for a loss, 0.5 for a draw; None in the co-op games."""
    if game_id not in COMPETITIVE_GAMES:
        return None
    if winner is None:
        return 0.5
    return 1.0 if seat == winner else 0.0


def counts_for_pairs(match: Match) -> bool:
    """Whether a match's games are rated results between pairs (what a refit fits)."""
    return match.rated and match.game in COMPETITIVE_GAMES


def save_games(
    match: Match,
    versions: Sequence[BotVersion],
    played: Sequence[PlayedGame],
    stderr: dict[int, str],
    played_at: datetime,
    idle_seconds: float = 0.0,
) -> list[Game]:
    """Store the games of `match` (entry i played by `versions[i]`) and fold them into the aggregates. From the first
    row other stores write too on, the transaction may stand idle at most `idle_seconds` (stalls.end_if_idle; 0: no
    bound): only a few statements follow, whatever the number of games."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("save_games must run inside the transaction that marks the match done")
    rows = []
    key = seals.keys()[0]
    for result in played:
        outcome, log = result.outcome, result.log
        log_zlib = Game.compress_log(log)
        termination = outcome.termination.value
        rows.append(
            Game(
                match=match,
                index=result.index,
                game=match.game,
                seed=str(log.get("seed", "")),
                start_seat=log.get("start_seat", 0),
                termination=termination,
                winner_seat=outcome.winner,
                fault_seat=outcome.seat if outcome.termination.value in FORFEITS else None,
                score=outcome.score,
                detail=storable_text(outcome.detail or ""),
                turns=len(log.get("turns", [])),
                log_zlib=log_zlib,
                log_seal=seals.seal(
                    match.pk, result.index, match.game, termination, outcome.winner, outcome.score, log_zlib, key
                ),
                played_at=played_at,
            )
        )
    stored = Game.objects.bulk_create(rows)
    seats = [
        GameSeat(game=game, seat=seat, version=versions[bot], points=points(match.game, result.outcome.winner, seat))
        for game, result in zip(stored, played, strict=True)
        for seat, bot in enumerate(result.seat_bots)
    ]
    GameSeat.objects.bulk_create(seats)
    GameOutput.objects.bulk_create(
        [
            GameOutput(game=game, records_zlib=GameOutput.compress(result.turn_output))
            for game, result in zip(stored, played, strict=True)
            if getattr(result, "turn_output", None)
        ]
    )
    stalls.end_if_idle(idle_seconds)
    _add_to_entries(match, versions, seats, stderr)
    if counts_for_pairs(match):
        add_to_pairs(_pair_counts(match.game, stored, seats))
    if counts_for_seats(match):
        add_to_seats(_seat_counts(seats))
    if match.kind != Match.Kind.VALIDATION:
        add_to_forfeits(_forfeit_counts(stored, seats))
    return stored


def counts_for_seats(match: Match) -> bool:
    """Whether a match's games count in the versions' results by seat (competitive, not a validation)."""
    return match.game in COMPETITIVE_GAMES and match.kind != Match.Kind.VALIDATION


SeatKey = tuple[int, int]  # (version id, seat)


def _seat_counts(seats: list[GameSeat]) -> dict[SeatKey, Counter[str]]:
    counts: dict[SeatKey, Counter[str]] = defaultdict(Counter)
    for seat in seats:
        cell = counts[seat.version_id, seat.seat]
        cell["games"] += 1
        cell[{1.0: "wins", 0.0: "losses", 0.5: "draws"}[seat.points]] += 1
    return counts


def add_to_seats(counts: dict[SeatKey, Counter[str]]) -> None:
    """Add counts to `SeatResult` in one upsert, rows in key order (see the module's note on deadlocks)."""
    keys = sorted(counts)
    rows = [
        [version, seat, *(counts[version, seat][name] for name in ("games", "wins", "losses", "draws"))]
        for version, seat in keys
    ]
    _upsert(
        SeatResult,
        ("version_id", "seat"),
        ("games", "wins", "losses", "draws"),
        rows,
        added=("games", "wins", "losses", "draws"),
    )


ForfeitKey = tuple[int, str]  # (version id, termination)


@dataclass
class ForfeitCell:
    games: int
    newest: int
    oldest: int


def _forfeit_counts(stored: Sequence[Game], seats: list[GameSeat]) -> dict[ForfeitKey, ForfeitCell]:
    """Each version's forfeited games among `stored` by termination: the game's fault seat was the version's."""
    at = {(seat.game_id, seat.seat): seat.version_id for seat in seats}
    counts: dict[ForfeitKey, ForfeitCell] = {}
    for game in stored:
        if game.fault_seat is None or game.termination not in FORFEITS:
            continue
        key = (at[game.pk, game.fault_seat], game.termination)
        cell = counts.get(key)
        if cell is None:
            counts[key] = ForfeitCell(1, game.pk, game.pk)
        else:
            cell.games += 1
            cell.newest, cell.oldest = max(cell.newest, game.pk), min(cell.oldest, game.pk)
    return counts


def add_to_forfeits(counts: dict[ForfeitKey, ForfeitCell]) -> None:
    """Add counts to `ForfeitCount` in one upsert, rows in key order (see the module's note on deadlocks)."""
    rows = []
    for version, termination in sorted(counts):
        cell = counts[version, termination]
        rows.append([version, termination, cell.games, cell.newest, cell.oldest])
    _upsert(
        ForfeitCount,
        ("version_id", "termination"),
        ("games", "newest_game", "oldest_game"),
        rows,
        added=("games",),
        highest=("newest_game",),
        lowest=("oldest_game",),
    )


def _add_to_entries(
    match: Match, versions: Sequence[BotVersion], seats: list[GameSeat], stderr: dict[int, str]
) -> None:
    index_of: dict[int, int] = {}  # a self-play team lists its one entry's version once per seat
    for version in versions:
        index_of.setdefault(version.pk, len(index_of))
    totals = [{"games": set(), "wins": 0, "losses": 0, "draws": 0, "points": 0.0} for _ in index_of]
    for seat in seats:
        total = totals[index_of[seat.version_id]]
        total["games"].add(seat.game.pk)
        if seat.points is not None:
            total["points"] += seat.points
            total["wins"] += seat.points == 1.0
            total["losses"] += seat.points == 0.0
            total["draws"] += seat.points == 0.5
    for index, total in enumerate(totals):
        changes = {**total, "games": len(total["games"])}
        text = stderr.get(index, "")
        if text:
            changes["stderr_tail"] = storable_text(text, STDERR_TAIL_CHARS, tail=True)
        # Stored once per match (the claim guarantees it), so the counts are set, not added.
        MatchEntry.objects.filter(match=match, index=index).update(**changes)


def _pair_counts(game_id: str, stored: list[Game], seats: list[GameSeat]) -> dict[PairKey, PairCounts]:
    by_game: dict[int, dict[int, int]] = defaultdict(dict)
    for seat in seats:
        by_game[seat.game.pk][seat.seat] = seat.version_id
    counts: dict[PairKey, PairCounts] = defaultdict(PairCounts)
    for game in stored:
        key, winner = pair_of(game_id, by_game[game.pk], game.winner_seat)
        if key is not None:
            counts[key].add(winner, game.played_at)
    return counts


def pair_of(game_id: str, versions: dict[int, int], winner_seat: int | None) -> tuple[PairKey | None, int | None]:
    """The pair a two-seat game counts for (lower version id first) and its winner in that pair (0, 1 or None)."""
    if set(versions) != {0, 1} or versions[0] == versions[1]:
        return None, None
    swapped = versions[0] > versions[1]
    first, second = (versions[1], versions[0]) if swapped else (versions[0], versions[1])
    winner = None if winner_seat is None else winner_seat ^ swapped
    return PairKey(game_id, first, second), winner


def add_to_pairs(counts: dict[PairKey, PairCounts]) -> None:
    """Add counts to `PairResult` in one upsert, rows in key order (see the module's note on deadlocks)."""
    rows = []
    for key in sorted(counts, key=lambda k: (k.first, k.second)):
        cell = counts[key]
        stamp = connection.ops.adapt_datetimefield_value(cell.last_played)
        rows.append([key.first, key.second, key.game, cell.first_wins, cell.second_wins, cell.draws, stamp])
    _upsert(
        PairResult,
        ("first_id", "second_id"),
        ("game", "first_wins", "second_wins", "draws", "last_played"),
        rows,
        added=("first_wins", "second_wins", "draws"),
        highest=("last_played",),
    )


def _upsert(
    model: type[Model],
    key: tuple[str, ...],
    columns: tuple[str, ...],
    rows: list[list],
    added: tuple[str, ...] = (),
    highest: tuple[str, ...] = (),
    lowest: tuple[str, ...] = (),
) -> None:
    """Insert `rows` (the `key` columns, then `columns`) into `model`'s table in one statement; a row whose key is
    there already adds its `added` columns to the stored ones and keeps the higher of `highest`, the lower of
    `lowest`. The same statement runs on PostgreSQL and SQLite (>= 3.24): both know ON CONFLICT ... DO UPDATE and
    EXCLUDED."""
    if not rows:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    row = "(" + ", ".join(["%s"] * (len(key) + len(columns))) + ")"
    kept = "CASE WHEN EXCLUDED.{0} {1} {2}.{0} THEN EXCLUDED.{0} ELSE {2}.{0} END"
    updates = [f"{column} = {table}.{column} + EXCLUDED.{column}" for column in added]
    updates += [f"{column} = " + kept.format(column, ">", table) for column in highest]
    updates += [f"{column} = " + kept.format(column, "<", table) for column in lowest]
    sql = (
        f"INSERT INTO {table} ({', '.join(key + columns)}) VALUES {', '.join([row] * len(rows))} "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {', '.join(updates)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for values in rows for value in values])


class Rebuilt(NamedTuple):
    entries: int
    pairs: int
    seats: int
    forfeits: int = 0


@transaction.atomic
def rebuild(apps: Apps = global_apps, seats: bool = True, forfeits: bool = True) -> Rebuilt:
    """Recompute the match aggregates from the stored games: match entries, pairs of versions, version seats and
    forfeits (the co-op challenge results have their own rebuild, coop/rebuild.py).

    `apps` is the model registry: the project's, or a migration's historical one (the data migrations that
    introduced the aggregates fill them with this; `seats=False` for a state before `SeatResult`, `forfeits=False`
    before `ForfeitCount`).
    """
    entries = _rebuild_entries(apps.get_model("arena", "GameSeat"), apps.get_model("arena", "MatchEntry"))
    pairs = _rebuild_pairs(apps.get_model("arena", "GameSeat"), apps.get_model("arena", "PairResult"))
    seat_rows = rebuild_seats(apps) if seats else 0
    forfeit_rows = rebuild_forfeits(apps) if forfeits else 0
    return Rebuilt(entries, pairs, seat_rows, forfeit_rows)


@transaction.atomic
def rebuild_forfeits(apps: Apps = global_apps) -> int:
    """Recompute `ForfeitCount` from the stored games (one grouped query over the forfeited games); its rows."""
    GameSeat, ForfeitCount = apps.get_model("arena", "GameSeat"), apps.get_model("arena", "ForfeitCount")
    ForfeitCount.objects.all().delete()
    grouped = (
        GameSeat.objects.filter(game__fault_seat=F("seat"), game__termination__in=sorted(FORFEITS))
        .exclude(game__match__kind="validation")
        .values("version_id", "game__termination")
        .annotate(games=Count("game_id"), newest=Max("game_id"), oldest=Min("game_id"))
        .order_by("version_id", "game__termination")
    )
    rows = [
        ForfeitCount(
            version_id=row["version_id"],
            termination=row["game__termination"],
            games=row["games"],
            newest_game=row["newest"],
            oldest_game=row["oldest"],
        )
        for row in grouped.iterator(chunk_size=10_000)
    ]
    ForfeitCount.objects.bulk_create(rows, batch_size=5_000)
    return len(rows)


def rebuild_seats(apps: Apps = global_apps) -> int:
    """Recompute `SeatResult` from the stored games (one grouped query); returns how many rows it holds."""
    GameSeat, SeatResult = apps.get_model("arena", "GameSeat"), apps.get_model("arena", "SeatResult")
    SeatResult.objects.all().delete()
    grouped = (
        GameSeat.objects.filter(game__game__in=COMPETITIVE_GAMES)
        .exclude(game__match__kind="validation")
        .values("version_id", "seat")
        .annotate(
            games=Count("pk"),
            wins=Count("pk", filter=Q(points=1.0)),
            losses=Count("pk", filter=Q(points=0.0)),
            draws=Count("pk", filter=Q(points=0.5)),
        )
        .order_by("version_id", "seat")
    )
    rows = [SeatResult(**row) for row in grouped.iterator(chunk_size=10_000)]
    SeatResult.objects.bulk_create(rows, batch_size=5_000)
    return len(rows)


def _rebuild_entries(GameSeat: type[Model], MatchEntry: type[Model]) -> int:
    # One UPDATE with a correlated count per column: no rows travel to Python, whatever the number of matches.
    seats = GameSeat.objects.filter(game__match=OuterRef("match"), version=OuterRef("version")).order_by()

    def total(aggregate: Aggregate) -> Coalesce:
        return Coalesce(Subquery(seats.values("version").annotate(total=aggregate).values("total")), 0)

    return MatchEntry.objects.update(
        games=total(Count("game", distinct=True)),
        wins=total(Count("pk", filter=Q(points=1.0))),
        losses=total(Count("pk", filter=Q(points=0.0))),
        draws=total(Count("pk", filter=Q(points=0.5))),
        points=Coalesce(Subquery(seats.values("version").annotate(total=Sum("points")).values("total")), 0.0),
    )


def _rebuild_pairs(GameSeat: type[Model], PairResult: type[Model]) -> int:
    PairResult.objects.all().delete()
    grouped = (
        GameSeat.objects.filter(
            seat=0,
            game__seats__seat=1,
            game__game__in=COMPETITIVE_GAMES,
            game__match__rated=True,
            game__match__status="done",
        )
        .values("game__game", "version_id", "game__seats__version_id", "game__winner_seat")
        .annotate(n=Count("pk"), last=Max("game__played_at"))
        .order_by()
    )
    counts: dict[PairKey, PairCounts] = defaultdict(PairCounts)
    tally: Counter[tuple[PairKey, int | None]] = Counter()
    for row in grouped.iterator(chunk_size=10_000):
        seats = {0: row["version_id"], 1: row["game__seats__version_id"]}
        key, winner = pair_of(row["game__game"], seats, row["game__winner_seat"])
        if key is None:
            continue
        tally[key, winner] += row["n"]
        cell = counts[key]
        if cell.last_played is None or row["last"] > cell.last_played:
            cell.last_played = row["last"]
    for (key, winner), n in tally.items():
        cell = counts[key]
        if winner == 0:
            cell.first_wins += n
        elif winner == 1:
            cell.second_wins += n
        else:
            cell.draws += n
    PairResult.objects.bulk_create(
        [
            PairResult(
                game=key.game,
                first_id=key.first,
                second_id=key.second,
                first_wins=cell.first_wins,
                second_wins=cell.second_wins,
                draws=cell.draws,
                last_played=cell.last_played,
            )
            for key, cell in sorted(counts.items(), key=lambda item: (item[0].first, item[0].second))
        ],
        batch_size=5_000,
    )
    return len(counts)
