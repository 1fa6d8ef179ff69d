"""`python -m bots analyse LOG... [--rollouts N] [--seed S] [--horizon H] [--json]`: the expert judges every turn."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bots.analysis.analyse import analyse_log
from bots.analysis.report import table, to_json
from bots.analysis.rollouts import Precision
from games import LogMismatch, read_log


def add_parser(commands: Any) -> None:
    analyse = commands.add_parser(
        "analyse",
        aliases=["analyze"],
        help="the expert analyses logged games: every turn's value, the best turn, marks and accuracy",
        description=(
            "For every turn, from the mover's side and with only what the mover could know: the value before the "
            "turn, after the turn played, and the expert's best turn with its value; a mark (inaccuracy, mistake, "
            "blunder) by how much the played turn gives away; per-seat accuracy. See docs/analysis.md."
        ),
    )
    analyse.add_argument("logs", nargs="+", type=Path, metavar="LOG", help="game logs (python -m bots play --log-dir)")
    analyse.add_argument(
        "--rollouts",
        type=int,
        default=Precision.max_samples,
        help=f"rollouts per turn at most; fewer once the values are precise (default {Precision.max_samples})",
    )
    analyse.add_argument("--seed", default="0", help="seed of the guesses at hidden cards (default 0)")
    analyse.add_argument(
        "--horizon",
        type=int,
        default=Precision.horizon,
        help=f"turns the expert plays in each rollout before the position is valued (default {Precision.horizon})",
    )
    analyse.add_argument("--turns", help="analyse only these turns, e.g. 5,7,10-12 (default: all)")
    analyse.add_argument("--json", action="store_true", help="print one JSON object per log, one per line")
    analyse.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show turns done on stderr (default: if stderr is a terminal, without --json)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        least = min(Precision.min_samples, args.rollouts)
        precision = Precision(max_samples=args.rollouts, min_samples=least, horizon=args.horizon)
        turns = parse_turns(args.turns) if args.turns else None
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    show_progress = args.progress if args.progress is not None else sys.stderr.isatty() and not args.json
    status = 0
    for path in args.logs:
        try:
            log = read_log(path)
            progress = _progress_line(path) if show_progress else None
            analysis = analyse_log(log, args.seed, precision, turns, progress)
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as error:
            print(f"{path}: cannot read: {error}", file=sys.stderr)
            status = max(status, 2)
            continue
        except LogMismatch as error:
            print(f"{path}: MISMATCH {error} (python -m games replay says more)", file=sys.stderr)
            status = max(status, 1)
            continue
        finally:
            if show_progress:
                sys.stderr.write("\r\x1b[K")
        if args.json:
            print(json.dumps(to_json(str(path), analysis), separators=(",", ":")))
        else:
            for line in table(str(path), analysis):
                print(line)
            print()
        sys.stdout.flush()
    return status


def parse_turns(text: str) -> set[int]:
    """'5,7,10-12' -> {5, 7, 10, 11, 12}."""
    turns: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        try:
            first, last = int(low), int(high) if dash else int(low)
        except ValueError:
            raise ValueError(f"--turns {text!r}: write turn numbers and ranges, e.g. 5,7,10-12") from None
        if first < 1 or last < first:
            raise ValueError(f"--turns {text!r}: {part.strip()!r} is not a range of turns from 1")
        turns.update(range(first, last + 1))
    return turns


def _progress_line(path: Path):  # noqa: ANN202 - a (done, total) -> None callback
    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r{path}: turn {done}/{total}\x1b[K")
        sys.stderr.flush()

    return show
