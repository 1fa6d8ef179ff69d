"""Command line: `python -m games replay FILE...` checks logs; `python -m games show FILE` prints one."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from games.errors import LogMismatch
from games.log import read_log
from games.outcome import Outcome
from games.replay import replay
from games.show import render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay_parser = commands.add_parser("replay", help="re-simulate logs and check every turn and result")
    replay_parser.add_argument("files", nargs="+", type=Path)
    show_parser = commands.add_parser("show", help="print a game turn by turn")
    show_parser.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay_files(args.files)
    return show_file(args.file)


def replay_files(paths: list[Path]) -> int:
    for path in paths:
        checked = _checked_log(path)
        if isinstance(checked, int):
            return checked
        log, outcome = checked
        bots = ", ".join(str(seat.get("bot")) for seat in log.get("seats", []))
        print(f"{path}: ok {log['game']} [{bots}] {len(log['turns'])} turns: {outcome}")
    return 0


def show_file(path: Path) -> int:
    checked = _checked_log(path)
    if isinstance(checked, int):
        return checked
    for line in render(checked[0]):
        print(line)
    return 0


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
