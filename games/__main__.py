"""Command line: `python -m games replay FILE...` checks logs; `python -m games show FILE` prints one.

A FILE is a log (`*.json`) or an archive of logs, one per line (`*.jsonl`, `*.jsonl.gz`: the league's game exports).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from itertools import islice
from pathlib import Path

from games.archive import ArchiveError, default_jobs, is_archive, read_archive, replay_lines
from games.errors import LogMismatch
from games.log import read_log
from games.outcome import Outcome
from games.replay import replay
from games.show import render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay_parser = commands.add_parser("replay", help="re-simulate logs and check every turn and result")
    replay_parser.add_argument("files", nargs="+", type=Path, help="logs (.json) and archives (.jsonl, .jsonl.gz)")
    replay_parser.add_argument(
        "--jobs", type=int, default=default_jobs(), help="processes replaying an archive (default: the CPUs here)"
    )
    show_parser = commands.add_parser("show", help="print a game turn by turn")
    show_parser.add_argument("file", type=Path)
    show_parser.add_argument("--line", type=int, help="in an archive: the game on this line (from 1)")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay_files(args.files, max(1, args.jobs))
    return show_file(args.file, args.line)


def replay_files(paths: list[Path], jobs: int = 1) -> int:
    for path in paths:
        if is_archive(path):
            code = replay_archive(path, jobs)
            if code:
                return code
            continue
        checked = _checked_log(path)
        if isinstance(checked, int):
            return checked
        log, outcome = checked
        bots = ", ".join(str(seat.get("bot")) for seat in log.get("seats", []))
        print(f"{path}: ok {log['game']} [{bots}] {len(log['turns'])} turns: {outcome}")
    return 0


MISMATCHES_SHOWN = 20


def replay_archive(path: Path, jobs: int) -> int:
    """Replay every line, print the first mismatches and a summary: 0 all replay, 1 some do not, 2 unreadable."""
    games_seen: Counter[str] = Counter()
    mismatches = 0
    try:
        for check in replay_lines(read_archive(path), jobs):
            games_seen[str(check.game)] += 1
            if check.mismatch is not None:
                mismatches += 1
                if mismatches <= MISMATCHES_SHOWN:
                    print(f"{path} {check.label}: MISMATCH {check.mismatch}", file=sys.stderr)
    except (OSError, EOFError, ArchiveError) as error:
        print(f"{path}: cannot read: {error}", file=sys.stderr)
        return 2
    total = sum(games_seen.values())
    kinds = ", ".join(f"{game} {count}" for game, count in sorted(games_seen.items()))
    if mismatches:
        print(f"{path}: {mismatches} of {total} games do not replay ({kinds})", file=sys.stderr)
        return 1
    print(f"{path}: ok {total} games ({kinds or 'empty'})")
    return 0


def show_file(path: Path, line: int | None = None) -> int:
    if is_archive(path) != (line is not None):
        print(f"{path}: --line N picks a game of an archive (.jsonl, .jsonl.gz), and only there", file=sys.stderr)
        return 2
    checked = _checked_log(path) if line is None else _checked_archive_line(path, line)
    if isinstance(checked, int):
        return checked
    for text in render(checked[0]):
        print(text)
    return 0


def _checked_archive_line(path: Path, number: int) -> tuple[dict, Outcome] | int:
    try:
        found = next(islice((line for line in read_archive(path) if line.number == number), 1), None)
    except (OSError, EOFError, ArchiveError) as error:
        print(f"{path}: cannot read: {error}", file=sys.stderr)
        return 2
    if found is None:
        print(f"{path}: has no line {number}", file=sys.stderr)
        return 2
    try:
        return found.log, replay(found.log)
    except LogMismatch as error:
        print(f"{path} {found.label}: MISMATCH {error}", file=sys.stderr)
        return 1


def _checked_log(path: Path) -> tuple[dict, Outcome] | int:
    """The log and its replayed outcome, or the exit code after saying what is wrong (2 unreadable, 1 mismatch)."""
    try:
        log = read_log(path)
        return log, replay(log)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as error:
        print(f"{path}: cannot read: {error}", file=sys.stderr)
        return 2
    except LogMismatch as error:
        print(f"{path}: MISMATCH {error}", file=sys.stderr)
        return 1


def exit_quietly_on_broken_pipe(main_function) -> int:  # noqa: ANN001 - a () -> int
    """Run `main_function`; a reader that stops early (`| head`) ends the run quietly, as in the Python docs' recipe."""
    try:
        code = main_function()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # Python flushes stdout again at exit; pointing it at devnull keeps that flush from raising a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(exit_quietly_on_broken_pipe(main))
