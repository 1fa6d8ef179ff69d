"""Games as data: every public game, as compressed JSON-lines archives per game and month (docs/game-log.md).

Each line is one game: its id, when it was played, its match (id, kind, tournament, the game's index), its seats'
bots and versions, and the verified public log: as stored when the seal written with it still holds
(league/arena/play/seals.py says why that is sound), else re-simulated by the engine as `Game.verified_log()` does,
on several processes (a game whose log no longer replays is left out and counted). Public means a finished ladder,
tournament or exhibition match: validation matches, scrims and version tests are private to their owners, and any
kind added later stays out until listed here.

Export is incremental and streams. Only finished months are written (the current one keeps growing), each once:
`exported-through` in the archive folder names the last month done, and a run reads only the games after it
(keyset pages of ARCHIVE_CHUNK games by id, the log with them, and their seats), writing each game's line
straight into its (game, month) file. Memory holds one page, whatever the number of games. Files are written under
a temporary name and renamed, with their manifest (size, SHA-256, games), only when the whole run succeeded.
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import re
import zlib
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson
from django.conf import settings
from django.utils import timezone

import games
from league.arena.models import BotVersion, Game, GameSeat, Match
from league.arena.play import seals

PUBLIC_KINDS = (Match.Kind.LADDER, Match.Kind.TOURNAMENT, Match.Kind.EXHIBITION)
ARCHIVE_CHUNK = 2000
# A game is stored with played_at set as its match is stored: past this after a month's end, none of it is missing.
SETTLE = timedelta(hours=1)
MARKER = "exported-through"
NAME = re.compile(r"^(?P<game>[a-z-]+)-(?P<month>\d{4}-\d{2})\.jsonl\.gz$")


@dataclass(frozen=True)
class Archive:
    name: str  # face-to-face-2026-10.jsonl.gz
    game: str
    month: str  # 2026-10
    games: int
    bytes: int
    sha256: str


@dataclass(frozen=True)
class ExportResult:
    months: list[str]  # the months written this run, oldest first
    archives: list[Archive]
    games: int
    skipped: int  # public games whose stored log no longer replays (left out)
    replayed: int = 0  # public games verified by replaying their log (no holding seal), the skipped ones among them


def folder() -> Path:
    return Path(settings.ARENA_ARCHIVE_DIR)


def archives() -> list[Archive]:
    """Every archive written, newest month first, then by game."""
    found = []
    for manifest in folder().glob("*.jsonl.gz.json"):
        try:
            found.append(Archive(**json.loads(manifest.read_text())))
        except (OSError, ValueError, TypeError):
            continue  # a manifest being replaced this instant, or not ours
    return sorted(sorted(found, key=lambda archive: archive.game), key=lambda archive: archive.month, reverse=True)


def archive_path(name: str) -> Path | None:
    """The archive file of that name, or None when there is none (or the name is not an archive's)."""
    if not NAME.match(name) or not (folder() / f"{name}.json").is_file():
        return None
    return folder() / name


def exported_through() -> str | None:
    try:
        return (folder() / MARKER).read_text().strip() or None
    except FileNotFoundError:
        return None


def export(now: datetime | None = None, jobs: int = 1) -> ExportResult:
    """Write the archives of every finished month not written yet, replaying the logs on `jobs` processes."""
    now = now or timezone.now()
    end = _month_start(now - SETTLE)  # games before this are in finished months
    done = exported_through()
    begin = _next_month(datetime.strptime(done, "%Y-%m").replace(tzinfo=UTC)) if done else None
    if begin is not None and begin >= end:
        return ExportResult([], [], 0, 0)
    target = folder()
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another export runs now; it writes these months
            return ExportResult([], [], 0, 0)
        return _export(target, begin, end, jobs)


def _export(target: Path, begin: datetime | None, end: datetime, jobs: int) -> ExportResult:
    writers: dict[tuple[str, str], _Writer] = {}
    written = skipped = 0
    try:
        # Compression runs on a thread of its own (zlib lets go of the GIL), a page behind the reading.
        with _Verifier(jobs) as verifier, ThreadPoolExecutor(max_workers=1) as compressor:
            compressing: Future[None] | None = None
            for page in _public_pages(begin, end):
                lines: dict[_Writer, list[bytes]] = {}
                for (row, record), log in zip(page, verifier.logs([row for row, _ in page]), strict=True):
                    if log is None:
                        skipped += 1
                        continue
                    key = (row.game, row.played_at.astimezone(UTC).strftime("%Y-%m"))
                    if key not in writers:
                        writers[key] = _Writer(target, *key)
                    lines.setdefault(writers[key], []).append(orjson.dumps(record)[:-1] + b',"log":' + log + b"}\n")
                    written += 1
                if compressing is not None:
                    compressing.result()
                compressing = compressor.submit(_write_lines, lines)
            if compressing is not None:
                compressing.result()
        made = [writer.finish() for _, writer in sorted(writers.items())]
    except BaseException:
        for writer in writers.values():
            writer.discard()
        raise
    last = (end - timedelta(days=1)).strftime("%Y-%m")
    (target / f"{MARKER}.partial").write_text(last + "\n")
    os.replace(target / f"{MARKER}.partial", target / MARKER)
    months = sorted({archive.month for archive in made})
    return ExportResult(months, made, written, skipped, verifier.replayed)


def _write_lines(lines: dict[_Writer, list[bytes]]) -> None:
    for writer, written in lines.items():
        writer.write(b"".join(written), len(written))


class _Row(NamedTuple):
    """What the export reads of a public game."""

    id: int
    match_id: int
    index: int
    game: str
    termination: str
    winner_seat: int | None
    score: int | None
    log_zlib: bytes
    log_seal: bytes
    played_at: datetime
    kind: str
    tournament_id: int | None


def _public_pages(begin: datetime | None, end: datetime) -> Iterator[list[tuple[_Row, dict[str, Any]]]]:
    """(game, its line) for each public game played in [begin, end), by id, a page at a time."""
    chosen = Game.objects.filter(match__kind__in=PUBLIC_KINDS, match__status=Match.Status.DONE, played_at__lt=end)
    if begin is not None:
        chosen = chosen.filter(played_at__gte=begin)
    columns = [
        "pk", "match_id", "index", "game", "termination", "winner_seat", "score", "log_zlib", "log_seal", "played_at",
        "match__kind", "match__tournament_id",
    ]  # fmt: skip
    after = 0
    versions = _Versions()
    while True:
        page = [_Row(*row) for row in chosen.filter(pk__gt=after).order_by("pk").values_list(*columns)[:ARCHIVE_CHUNK]]
        if not page:
            return
        seats: dict[int, list[tuple[int, int]]] = {game.id: [] for game in page}
        # The seats of the page's id range (one index range, not 2,000 ids), less the private games' among them.
        rows = GameSeat.objects.filter(game_id__gte=page[0].id, game_id__lte=page[-1].id).order_by("game_id", "seat")
        for game_id, seat, version_id in rows.values_list("game_id", "seat", "version_id"):
            if game_id in seats:
                seats[game_id].append((seat, version_id))
        versions.load({version_id for seated in seats.values() for _, version_id in seated})
        yield [(game, _record(game, [versions.seat(*seated) for seated in seats[game.id]])) for game in page]
        after = page[-1].id


class _Versions:
    """Each version's bot, owner and number, read once per export (a league has thousands, its games millions)."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[str, int, str, int]] = {}

    def load(self, ids: set[int]) -> None:
        missing = ids - self.known.keys()
        if missing:
            rows = BotVersion.objects.filter(pk__in=missing).values_list(
                "pk", "bot__name", "bot_id", "bot__owner__username", "number"
            )
            self.known.update((pk, (bot, bot_id, owner, number)) for pk, bot, bot_id, owner, number in rows)

    def seat(self, seat: int, version_id: int) -> dict[str, Any]:
        bot, bot_id, owner, number = self.known[version_id]
        return {"seat": seat, "bot": bot, "bot_id": bot_id, "owner": owner, "version": number, "version_id": version_id}


def _record(game: _Row, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The line of a game but its log."""
    return {
        "id": game.id,
        "played_at": game.played_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "match": {"id": game.match_id, "kind": game.kind, "tournament": game.tournament_id, "index": game.index},
        "seats": seats,
    }


class _Verifier:
    """The verified logs of a page of games, in order: a game whose seal holds (league/arena/play/seals.py says why
    that is sound) gives its stored log as it is; any other is replayed by the engine, on `jobs` processes started
    only once such a game turns up."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.keys = seals.keys()
        self.pool: ProcessPoolExecutor | None = None
        self.replayed = 0

    def __enter__(self) -> _Verifier:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def logs(self, page: list[_Row]) -> list[bytes | None]:
        """Each game's log as JSON once verified, or None when it does not replay to the stored outcome."""
        logs: list[bytes | None] = []
        unsealed: list[tuple[int, tuple[bytes, str, int | None, int | None]]] = []
        for game in page:
            stored = bytes(game.log_zlib)
            fields = (game.match_id, game.index, game.game, game.termination, game.winner_seat, game.score, stored)
            if seals.holds(bytes(game.log_seal), self.keys, *fields):
                logs.append(zlib.decompress(stored))  # games.dumps_log's compact JSON: one line
            else:
                logs.append(None)
                unsealed.append((len(logs) - 1, (stored, game.termination, game.winner_seat, game.score)))
        for (position, _), log in zip(unsealed, self._replay([item for _, item in unsealed]), strict=True):
            logs[position] = log
        return logs

    def _replay(self, items: list[tuple[bytes, str, int | None, int | None]]) -> Iterator[bytes | None]:
        self.replayed += len(items)
        if self.jobs <= 1 or len(items) < 2:
            return map(verify_log, items)
        if self.pool is None:
            self.pool = ProcessPoolExecutor(max_workers=self.jobs)
        return self.pool.map(verify_log, items, chunksize=max(1, len(items) // (4 * self.jobs)))


def verify_log(stored: tuple[bytes, str, int | None, int | None]) -> bytes | None:
    """A stored log (zlib) as compact JSON when it replays to the stored (termination, winner, score); else None."""
    log_zlib, termination, winner, score = stored
    log = orjson.loads(zlib.decompress(log_zlib))
    try:
        outcome = games.replay(log)
    except games.LogMismatch:
        return None
    if (outcome.termination.value, outcome.winner, outcome.score) != (termination, winner, score):
        return None
    return orjson.dumps(log)


class _Writer:
    """One archive being written: gzip into a temporary file, its digest and size counted as it goes."""

    def __init__(self, target: Path, game: str, month: str) -> None:
        self.game, self.month = game, month
        self.name = f"{game}-{month}.jsonl.gz"
        self.path = target / self.name
        self.partial = target / f".{self.name}.partial"
        self.raw: IO[bytes] = open(self.partial, "wb")  # noqa: SIM115 (closed in finish or discard)
        self.digest = hashlib.sha256()
        self.zipped = gzip.GzipFile(
            filename="", mode="wb", fileobj=_Hashing(self.raw, self.digest), mtime=0, compresslevel=6
        )
        self.games = 0

    def write(self, lines: bytes, games: int) -> None:
        self.zipped.write(lines)
        self.games += games

    def finish(self) -> Archive:
        self.zipped.close()
        self.raw.close()
        archive = Archive(
            self.name, self.game, self.month, self.games, self.partial.stat().st_size, self.digest.hexdigest()
        )
        os.replace(self.partial, self.path)
        manifest = self.path.with_name(self.name + ".json")
        manifest.with_suffix(".partial").write_text(json.dumps(asdict(archive)))
        os.replace(manifest.with_suffix(".partial"), manifest)
        return archive

    def discard(self) -> None:
        self.zipped.close()
        self.raw.close()
        self.partial.unlink(missing_ok=True)


class _Hashing:
    """A write-only file that hashes what passes through it."""

    def __init__(self, raw: IO[bytes], digest: Any) -> None:
        self.raw, self.digest = raw, digest

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()


def _month_start(moment: datetime) -> datetime:
    moment = moment.astimezone(UTC)
    return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def _next_month(month: datetime) -> datetime:
    return (month.replace(day=28) + timedelta(days=4)).replace(day=1)
