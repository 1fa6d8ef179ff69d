"""Game archives: many logs in one JSON-lines file, gzip-compressed or plain (`*.jsonl.gz`, `*.jsonl`).

Each line is one JSON object: a game log itself, or a record that holds the log under "log" beside what its
publisher adds (the league's exports add the game's id, its match, the bots and their versions: docs/game-log.md).
Archives are read a line at a time, so a million games take the memory of one; `replay_lines` checks them on
several processes with a bounded number of lines in flight, in the archive's order.
"""

from __future__ import annotations

import gzip
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import orjson

from games.errors import LogMismatch
from games.replay import replay

ARCHIVE_SUFFIXES = (".jsonl", ".jsonl.gz")
CHUNK_LINES = 200  # lines a worker process checks per task: large enough that pickling is not the cost
T = TypeVar("T")
R = TypeVar("R")


class ArchiveError(ValueError):
    """A line of an archive is not a JSON object (the message names the line)."""


@dataclass(frozen=True)
class ArchiveLine:
    number: int  # from 1, as editors count
    record: dict[str, Any]

    @property
    def log(self) -> Any:
        return self.record["log"] if "log" in self.record else self.record

    @property
    def label(self) -> str:
        """`line 17`, or `line 17 (game 123)` when the record names its game."""
        named = self.record.get("id") if "log" in self.record else None
        return f"line {self.number}" + (f" (game {named})" if named is not None else "")


@dataclass(frozen=True)
class LineCheck:
    """What replaying one line found: the log's game and its outcome, or why it does not replay."""

    label: str
    game: str | None
    outcome: str | None
    mismatch: str | None


def is_archive(path: Path) -> bool:
    return path.name.endswith(ARCHIVE_SUFFIXES)


def read_archive(path: Path) -> Iterator[ArchiveLine]:
    """Every line of the archive, in order; raises OSError/EOFError for an unreadable file, ArchiveError for a line."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as error:
                raise ArchiveError(f"line {number} is not JSON: {error}") from error
            if not isinstance(record, dict):
                raise ArchiveError(f"line {number} is not a JSON object")
            yield ArchiveLine(number, record)


def check_line(line: ArchiveLine) -> LineCheck:
    log = line.log
    game = log.get("game") if isinstance(log, dict) else None
    try:
        return LineCheck(line.label, game, str(replay(log)), None)
    except LogMismatch as error:
        return LineCheck(line.label, game, None, str(error))


def replay_lines(lines: Iterable[ArchiveLine], jobs: int = 1) -> Iterator[LineCheck]:
    """check_line for every line, in order, on `jobs` processes (1: this one)."""
    return map_bounded(check_line, lines, jobs)


def map_bounded(function: Callable[[T], R], items: Iterable[T], jobs: int, chunk: int = CHUNK_LINES) -> Iterator[R]:
    """function(item) for every item, in order, on `jobs` processes, with at most 2 x jobs chunks in flight.

    ProcessPoolExecutor.map would submit the whole input at once; this keeps memory flat for any input size.
    `function` must be a module-level function (it is pickled to the workers).
    """
    if jobs <= 1:
        yield from map(function, items)
        return
    source = iter(items)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: deque[Future[list[R]]] = deque()
        while True:
            while len(pending) < 2 * jobs:
                batch = list(islice(source, chunk))
                if not batch:
                    break
                pending.append(pool.submit(_apply, function, batch))
            if not pending:
                return
            yield from pending.popleft().result()


def _apply(function: Callable[[T], R], batch: list[T]) -> list[R]:
    return [function(item) for item in batch]


def default_jobs() -> int:
    """The CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
