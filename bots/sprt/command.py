"""`python -m bots sprt NEW BASE --game G`: is NEW stronger than BASE? A sequential test on game pairs.

Face to Face plays duplicate pairs (each deal twice, seats swapped); The Game and Extreme play every deal once with
a team of NEW and once with a team of BASE (--players seats each) and compare the cards left. After every batch
the generalized SPRT (fishtest's) decides: H1 (NEW is at least --elo1 better), H0 (at most --elo0 better), or
play on, up to --max-games. Exit status: 0 H1 accepted, 1 H0 accepted, 3 no verdict at the cap, 2 usage errors.
The statistics are explained in docs/sprt.md.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import games
from bots.house import is_house_ref, parse_ref
from bots.match import BotSpec, TimeControl
from bots.sprt.counts import CELL_NAMES, PENTANOMIAL
from bots.sprt.gsprt import SPRT, EloModel, Verdict
from bots.sprt.play import Contest, run_test
from bots.sprt.status import Status

EXIT_CODES = {Verdict.H1: 0, Verdict.H0: 1, None: 3}
USAGE_ERROR = 2
DEFAULT_MAX_GAMES = 100_000
DEFAULT_BATCH = 8


def add_parser(commands: Any) -> None:
    """Add the `sprt` subcommand to `python -m bots`."""
    sprt = commands.add_parser(
        "sprt",
        help="test whether NEW is stronger than BASE, playing until a sequential test decides",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sprt.add_argument("new", metavar="NEW", help="the version under test: house:NAME or a .py/.zip bot")
    sprt.add_argument("base", metavar="BASE", help="the version to beat: house:NAME or a .py/.zip bot")
    sprt.add_argument("--game", required=True, choices=games.GAME_IDS)
    sprt.add_argument("--players", type=int, help="co-op games: seats per team (default 1)")
    sprt.add_argument("--elo0", type=float, default=0.0, help="H0: NEW is this much better (default 0)")
    sprt.add_argument("--elo1", type=float, default=5.0, help="H1: NEW is this much better (default 5)")
    sprt.add_argument(
        "--elo-model", choices=[str(m) for m in EloModel], default=str(EloModel.NORMALIZED), help="default normalized"
    )
    sprt.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    sprt.add_argument(
        "--max-games", type=int, default=DEFAULT_MAX_GAMES, help=f"game cap (default {DEFAULT_MAX_GAMES:,})"
    )
    sprt.add_argument(
        "--batch", type=int, default=DEFAULT_BATCH, help=f"pairs (deals) between checks (default {DEFAULT_BATCH})"
    )
    sprt.add_argument("--seed", help="deal k is dealt from 'SEED:k' (default: a new random seed, printed)")
    sprt.add_argument("--json", action="store_true", help="print the result as one JSON object")
    sprt.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show games, LLR and Elo on stderr (default: if stderr is a terminal, without --json)",
    )
    sprt.add_argument("--turn-time", type=float, default=1.0, help="seconds per turn (default 1)")
    sprt.add_argument("--bank", type=float, default=10.0, help="overage bank per game in seconds (default 10)")
    sprt.add_argument("--startup", type=float, default=5.0, help="seconds to load a bot (default 5)")
    sprt.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run file bots in this process, without the sandbox (your own bots only)",
    )


def design(args: argparse.Namespace) -> SPRT:
    return SPRT(args.elo0, args.elo1, args.alpha, args.beta, EloModel(args.elo_model))


def contest(args: argparse.Namespace) -> Contest:
    if args.game == games.FACE_TO_FACE:
        if args.players not in (None, 2):
            raise ValueError("face-to-face is for exactly 2 players")
        players = 2
    else:
        players = 1 if args.players is None else args.players
        if not 1 <= players <= 5:
            raise ValueError(f"{args.game} is for 1 to 5 players, got {players}")
    for ref in (args.new, args.base):
        if is_house_ref(ref):
            parse_ref(ref)  # UnknownHouseBot (a ValueError) for a name that is not a house bot
        elif not Path(ref).is_file():
            raise ValueError(f"bot {ref!r} is neither house:NAME nor an existing .py/.zip file")
    if args.max_games < 2:
        raise ValueError(f"--max-games must be at least 2 (games are played in twos), got {args.max_games}")
    if args.batch < 1:
        raise ValueError(f"--batch must be at least 1, got {args.batch}")
    labels = _labels(args.new, args.base)
    return Contest(
        game=args.game,
        new=BotSpec(args.new, name=labels[0]),
        base=BotSpec(args.base, name=labels[1]),
        seed=args.seed if args.seed is not None else secrets.token_hex(16),
        players=players,
        time_control=TimeControl(args.turn_time, args.bank, args.startup),
        sandbox=not args.unsafe_no_sandbox,
    )


def _labels(new: str, base: str) -> tuple[str, str]:
    """The names the bots play under; two copies of one file are told apart as NEW and BASE."""
    return (new, base) if new != base else (f"{new} (NEW)", f"{base} (BASE)")


class ProgressLine:
    """The test's state on one line, redrawn at most every `every` seconds."""

    def __init__(self, stream: TextIO, every: float = 0.25) -> None:
        self.stream, self.every = stream, every
        self.drawn_at: float | None = None

    def update(self, status: Status) -> None:
        now = time.monotonic()
        if self.drawn_at is not None and now - self.drawn_at < self.every:
            return
        self.stream.write(f"\r{status.progress_line()}\x1b[K")
        self.stream.flush()
        self.drawn_at = now

    def finish(self) -> None:
        if self.drawn_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def record(status: Status, match: Contest, batch: int, elapsed: float) -> dict[str, Any]:
    return {
        **status.to_json(),
        "seed": match.seed,
        "game": match.game,
        "players": match.players,
        "new": match.new.ref,
        "base": match.base.ref,
        "batch": batch,
        "elapsed_s": round(elapsed, 3),
        "sentence": status.sentence(match.new.label, match.base.label),
    }


def report(status: Status, match: Contest, elapsed: float) -> str:
    test = status.test
    e = status.estimate
    counts = ", ".join(str(cell) for cell in status.counts.cells)
    cells = "[" + ", ".join(CELL_NAMES[status.counts.kind]) + "]"
    samples = "pairs" if status.counts.kind == PENTANOMIAL else "deals"
    return "\n".join(
        [
            f"{match.game}: {match.new.label} vs {match.base.label}, seed {match.seed}"
            + ("" if match.sandbox else ", NOT sandboxed"),
            f"  {status.sentence(match.new.label, match.base.label)}",
            f"  verdict {status.verdict or 'none'}: LLR {status.llr:+.3f} against [{test.lower:.3f}, {test.upper:.3f}]"
            f" ({test.elo_model} Elo bounds [{test.elo0:g}, {test.elo1:g}], alpha {test.alpha:g}, beta {test.beta:g})",
            f"  Elo {e.elo:+.1f} (95% CI {e.elo_low:+.1f} to {e.elo_high:+.1f}), LOS {100 * e.los:.1f}%,"
            f" normalized Elo {e.nelo:+.1f} ({e.nelo_low:+.1f} to {e.nelo_high:+.1f})",
            f"  {status.counts.games:,} games, {status.counts.pairs:,} {samples};"
            f" {status.counts.kind} {cells} = [{counts}]",
            f"  {elapsed:.1f} s, {status.counts.games / elapsed:.1f} games/s" if elapsed > 0 else "",
        ]
    ).rstrip()


def run(args: argparse.Namespace) -> int:
    try:
        test, match = design(args), contest(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    if args.unsafe_no_sandbox and not (match.new.is_house and match.base.is_house):
        print(
            "WARNING: --unsafe-no-sandbox runs the bot files in this process with your rights; "
            "use it only for your own bots.",
            file=sys.stderr,
        )
    show_progress = args.progress if args.progress is not None else sys.stderr.isatty() and not args.json
    progress = ProgressLine(sys.stderr) if show_progress else None
    started = time.perf_counter()
    try:
        status = run_test(match, test, args.max_games, args.batch, progress.update if progress else None)
    except Exception as error:  # a bot that cannot even be set up (missing bwrap, unreadable file)
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    finally:
        if progress is not None:
            progress.finish()
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(record(status, match, args.batch, elapsed), indent=2))
    else:
        print(report(status, match, elapsed))
    return EXIT_CODES[status.verdict]
