"""A pool of genuine game logs for bench/scale.py, played by the house bots on every core.

A million distinct games would take the machine's whole budget, so the fill plays a pool of a few
thousand real games and gives every stored game one of them: each stored game then replays, and its
row (termination, winner, score, turns, seed, start seat) is read off the log it got.

Logs are binned by what a game row needs to choose one: the game, how it ended (a normal end or a
crash, the way a failed upload's validation ends) and the winning or failing seat.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

from bots.match import BotSpec, MatchSpec, run_match
from games import Termination

FACE_TO_FACE = "face-to-face"
COOP_GAMES = ("the-game", "extreme")
CRASHING_BOT = 'def play(observation):\n    raise RuntimeError("a bot that crashes on its first turn")\n'
FACE_TO_FACE_PAIRINGS = (("random", "random"), ("greedy", "greedy"), ("random", "greedy"), ("greedy", "random"))
GAMES_PER_JOB = 250


@dataclass(frozen=True)
class PooledLog:
    """One played game: the columns a Game row copies from its log, and the compressed log itself."""

    game: str
    seed: str
    start_seat: int
    termination: str
    winner_seat: int | None
    fault_seat: int | None
    score: int | None
    detail: str
    turns: int
    log_zlib: bytes

    @property
    def crashed(self) -> bool:
        return self.termination == Termination.CRASH.value


@dataclass(frozen=True)
class Job:
    game: str
    bots: tuple[str, str]
    games: int
    seed: str


def jobs(face_to_face: int, coop: int, crashes: int) -> list[Job]:
    """The games to play: Face to Face over every house pairing, co-op games, and crashing candidates."""
    planned: list[Job] = []

    def add(game: str, bots: tuple[str, str], count: int, tag: str) -> None:
        for start in range(0, count, GAMES_PER_JOB):
            planned.append(Job(game, bots, min(GAMES_PER_JOB, count - start), f"scale-{tag}-{start}"))

    share = max(1, face_to_face // len(FACE_TO_FACE_PAIRINGS))
    for first, second in FACE_TO_FACE_PAIRINGS:
        add(FACE_TO_FACE, (f"house:{first}", f"house:{second}"), share, f"{first}-{second}")
    for game in COOP_GAMES:
        add(game, ("house:greedy", "house:random"), max(1, coop // len(COOP_GAMES)), game)
    for game in (FACE_TO_FACE, *COOP_GAMES):
        for seat, bots in enumerate((("crash", "house:random"), ("house:random", "crash"))):
            add(game, bots, max(1, crashes), f"crash-{game}-{seat}")
    return planned


def _play(job: Job) -> list[PooledLog]:
    from league.arena.models import Game  # the one definition of how a stored log is compressed

    with tempfile.TemporaryDirectory(prefix="scale-crash-") as folder:
        crasher = Path(folder) / "crash.py"
        crasher.write_text(CRASHING_BOT)
        refs = [str(crasher) if ref == "crash" else ref for ref in job.bots]
        spec = MatchSpec(
            game=job.game,
            bots=[BotSpec(ref=ref, name=ref if ref.startswith("house:") else "crash") for ref in refs],
            games=job.games,
            seed=job.seed,
            players=None if job.game == FACE_TO_FACE else 2,
            duplicate=False,
            sandbox=False,
            max_failures=1_000_000,  # every game of a crashing candidate records its own crash
        )
        result = run_match(spec)
    pooled = []
    for played in result.games:
        log, outcome = played.log, played.outcome
        pooled.append(
            PooledLog(
                game=job.game,
                seed=str(log["seed"]),
                start_seat=log["start_seat"],
                termination=outcome.termination.value,
                winner_seat=outcome.winner,
                fault_seat=outcome.seat if outcome.termination.is_bot_failure else None,
                score=outcome.score,
                detail=outcome.detail or "",
                turns=len(log["turns"]),
                log_zlib=Game.compress_log(log),
            )
        )
    return pooled


def play_pool(face_to_face: int, coop: int, crashes: int, processes: int | None = None) -> list[PooledLog]:
    """Play the pool on `processes` cores (all of them by default)."""
    planned = jobs(face_to_face, coop, crashes)
    with Pool(processes or os.cpu_count() or 1) as pool:
        return [log for batch in pool.imap(_play, planned) for log in batch]


class LogBins:
    """The pool sorted by (game, crashed, seat): seat is the winner in Face to Face, the crashing seat for a
    crash, and None for a co-op game that ended normally."""

    def __init__(self, logs: list[PooledLog]) -> None:
        self.logs = logs
        self.bins: dict[tuple[str, bool, int | None], list[int]] = {}
        for index, log in enumerate(logs):
            seat = log.fault_seat if log.crashed else log.winner_seat
            self.bins.setdefault((log.game, log.crashed, seat), []).append(index)

    def bin(self, game: str, crashed: bool, seat: int | None) -> list[int]:
        found = self.bins.get((game, crashed, seat))
        if not found:
            raise RuntimeError(f"the log pool has no {game} game with crashed={crashed}, seat={seat}: play more")
        return found

    def __iter__(self) -> Iterator[PooledLog]:
        return iter(self.logs)
