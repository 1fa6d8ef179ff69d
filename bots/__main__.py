"""Command line: `python -m bots play A B ... --game G --games N --seed S`, `python -m bots sprt NEW BASE --game G`.

Bots are `house:NAME` or a path to a .py/.zip bot. File bots run in the bubblewrap sandbox, exactly as
the league server runs them; `--unsafe-no-sandbox` runs your own bot in this process instead.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import games
from bots import starter, upload
from bots.analysis import cli as analysis_cli
from bots.house import is_house_ref, parse_ref
from bots.match import BotSpec, MatchSpec, StartPosition, TimeControl, run_match
from bots.sprt import command as sprt
from bots.summary import format_summary, summarize
from bots.turn_output import dumps_jsonl
from games.__main__ import exit_quietly_on_broken_pipe

SERVER_TIME = TimeControl()  # the league's defaults too (ARENA_TURN_SECONDS, ARENA_BANK_SECONDS, ...)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bots", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a match and print a summary")
    play.add_argument("bots", nargs="+", help="house:NAME or a path to a .py/.zip bot")
    play.add_argument("--game", choices=games.GAME_IDS, help="the game (required unless --from gives it)")
    play.add_argument("--games", type=int, help="number of games (default 100; 1 with --from)")
    play.add_argument("--seed", default="0", help="match seed; game k uses the deal of seed 'SEED:k'")
    play.add_argument("--players", type=int, help="co-op games: number of seats (default: number of bots)")
    play.add_argument("--duplicate", action="store_true", help="play each deal twice with the seats swapped")
    play.add_argument(
        "--log-dir",
        type=Path,
        help="write every game's log here as JSON: game-000001.json, game-000002.json, ... (always 6 digits)",
    )
    play.add_argument(
        "--from",
        dest="from_log",
        type=Path,
        metavar="LOG",
        help="start every game from a position of this logged game (with --turn): same deal, hands as logged",
    )
    play.add_argument("--turn", type=int, help="with --from: start before this turn of the log (from 1)")
    play.add_argument("--json", action="store_true", help="print the summary as JSON")
    play.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show games done, games/s and time left on stderr (default: if stderr is a terminal, without --json)",
    )
    play.add_argument(
        "--turn-time", type=float, default=SERVER_TIME.turn, help="seconds per turn (default %(default)s)"
    )
    play.add_argument(
        "--bank", type=float, default=SERVER_TIME.bank, help="overage bank per game in seconds (default %(default)s)"
    )
    play.add_argument(
        "--startup", type=float, default=SERVER_TIME.startup, help="seconds to load a bot (default %(default)s)"
    )
    play.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run file bots in this process, without the sandbox (your own bot only)",
    )
    upload.add_parser(commands)
    sprt.add_parser(commands)
    starter.add_parser(commands)
    analysis_cli.add_parser(commands)
    parser.add_argument("--version", action=PrintVersion, help="print the kit's or the server's version and exit")
    return parser


def start_position(args: argparse.Namespace) -> StartPosition | None:
    """The logged position --from LOG --turn N names (the game and seat count come from the log), or None."""
    if args.from_log is None:
        if args.turn is not None:
            raise ValueError("--turn needs --from LOG")
        if args.game is None:
            raise ValueError("--game is required (or --from LOG)")
        return None
    if args.turn is None:
        raise ValueError("--from needs --turn N: the turn of the log to start before")
    try:
        log = games.read_log(args.from_log)
    except (OSError, ValueError) as error:
        raise ValueError(f"--from {args.from_log}: cannot read the log: {error}") from error
    if not isinstance(log, dict) or log.get("game") not in games.GAME_IDS:
        raise ValueError(f"--from {args.from_log}: not a game log")
    if args.game is not None and args.game != log["game"]:
        raise ValueError(f"--from {args.from_log} is a game of {log['game']}, not {args.game}")
    players = (log.get("options") or {}).get("players")
    if args.players is not None and args.players != players:
        raise ValueError(f"--from {args.from_log} has {players} seat(s), not {args.players}")
    args.game, args.players = log["game"], players
    return StartPosition(log, args.turn)


class PrintVersion(argparse.Action):
    """`--version`: which distribution runs, looked up only when asked (it reads installed metadata)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001 - argparse's
        print(installed_version())
        parser.exit()


def installed_version() -> str:
    """`thegame-arena-kit 0.1.0` in the author's kit, `thegame-arena 0.1.0` beside the server."""
    for distribution in ("thegame-arena-kit", "thegame-arena"):
        try:
            return f"{distribution} {importlib.metadata.version(distribution)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown version: not installed (a checkout run without its environment)"


def match_spec(args: argparse.Namespace) -> MatchSpec:
    start = start_position(args)
    refs = list(args.bots)
    if args.game != games.FACE_TO_FACE:
        players = args.players or len(refs)
        if len(refs) == 1:
            refs = refs * players
        if len(refs) != players:
            raise ValueError(f"{args.game} with {players} player(s) needs 1 or {players} bots, got {len(refs)}")
    elif args.players not in (None, 2):
        raise ValueError("face-to-face is for exactly 2 players")
    for ref in refs:
        if is_house_ref(ref):
            parse_ref(ref)  # raises UnknownHouseBot (a ValueError) for a name that is not a house bot
        elif not Path(ref).is_file():
            raise ValueError(f"bot {ref!r} is neither house:NAME nor an existing .py/.zip file")
    return MatchSpec(
        game=args.game,
        bots=[BotSpec(ref) for ref in refs],
        games=args.games if args.games is not None else 1 if start is not None else 100,
        seed=args.seed,
        players=len(refs) if args.game != games.FACE_TO_FACE else None,
        duplicate=args.duplicate,
        time_control=TimeControl(args.turn_time, args.bank, args.startup),
        sandbox=not args.unsafe_no_sandbox,
        start=start,
    )


class Progress:
    """A one-line progress report, shown once a run takes over `delay` s and redrawn at most every `every` s."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        delay: float = 1.0,
        every: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.stream, self.delay, self.every, self.clock = total, stream, delay, every, clock
        self.started = clock()
        self.drawn_at: float | None = None

    def update(self, done: int) -> None:
        now = self.clock()
        elapsed = now - self.started
        if elapsed < self.delay or (self.drawn_at is not None and now - self.drawn_at < self.every):
            return
        rate = done / elapsed
        left = (self.total - done) / rate if rate > 0 else float("inf")
        eta = f"{left:.0f} s" if left != float("inf") else "?"
        self.stream.write(f"\r{done}/{self.total} games  {rate:.1f} games/s  ETA {eta}\x1b[K")
        self.stream.flush()
        self.drawn_at = now

    def finish(self) -> None:
        """Erase the line, so the summary starts on a clean one."""
        if self.drawn_at is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def log_file_name(index: int) -> str:
    """The log file of game `index` (from 0): a fixed width, so names sort and match whatever the game count."""
    return f"game-{index + 1:06d}.json"


def output_file_name(index: int) -> str:
    """The private file beside a log: what the bots wrote during each turn (not `.json`, so `logs/*.json` are logs)."""
    return f"game-{index + 1:06d}.output.jsonl"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "upload":
        return upload.run(args)
    if args.command == "sprt":
        return sprt.run(args)
    if args.command == "new":
        return starter.run(args)
    if args.command in ("analyse", "analyze"):
        return analysis_cli.run(args)
    try:
        spec = match_spec(args)
        spec.validate()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.unsafe_no_sandbox and any(not bot.is_house for bot in spec.bots):
        print(
            "WARNING: --unsafe-no-sandbox runs the bot files in this process with your rights; "
            "use it only for your own bot.",
            file=sys.stderr,
        )
    if args.log_dir is not None:
        args.log_dir.mkdir(parents=True, exist_ok=True)
    show_progress = args.progress if args.progress is not None else sys.stderr.isatty() and not args.json
    progress = Progress(spec.games, sys.stderr) if show_progress else None
    done = 0

    def on_game(result):  # noqa: ANN001 - a GameResult
        nonlocal done
        done += 1
        if args.log_dir is not None:
            (args.log_dir / log_file_name(result.index)).write_text(result.log_json + "\n", encoding="utf-8")
            if result.turn_output:
                output = dumps_jsonl(result.turn_output)
                (args.log_dir / output_file_name(result.index)).write_text(output, encoding="utf-8")
        if progress is not None:
            progress.update(done)

    try:
        result = run_match(spec, on_game)
    except Exception as error:  # a bot that cannot even be set up (missing bwrap, unreadable file)
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if progress is not None:
            progress.finish()
    summary = summarize(result)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


if __name__ == "__main__":
    sys.exit(exit_quietly_on_broken_pipe(main))
