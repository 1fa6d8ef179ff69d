"""Benchmark for issue 22: how many validation games catch the known broken bots, and what a clean bot's costs.

    python -m bench.validation                       # 40 simulated uploads of each broken bot, 40 games a side
    python -m bench.validation --uploads 10 --games 20     # a quick look

Validation plays the new version against each house opponent the league names (ARENA_VALIDATION_OPPONENTS:
house:random and house:greedy) on duplicate deals, ARENA_VALIDATION_GAMES games each, with a seed of the upload's
own. This bench plays those games for `--uploads` different seeds (each stands for one upload of the bot) with
the match runner in this process (the catch depends on the positions a bot meets, not on the sandbox) and notes,
for each opponent, the first game the candidate forfeits. The bots are bench/broken_bots/, each the house bot
greedy with one defect:
- illegal_sometimes: an illegal turn in some positions only (three cards in a row in its hand);
- crash_after: raises from the game's 40th turn on;
- slow_long: thinks 3 s a turn from the game's 40th turn on (1 s a turn and a 10 s bank). Here its sleep and the
  time control are both divided by 100, which keeps the games and the turn it runs out of time on the same.
It prints, for 10, 20, 30 and 40 games a side, the share of uploads caught, and how long clean greedy's
validation games take in this process (sandboxed, each game adds its bot's turns' round trips).
Goal (issue 22): every known broken bot caught in every upload at the league's game count; a clean bot's games
well inside the 15 s from upload to verdict (bench.api_upload measures the whole way with a sandboxed worker).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench import broken_bots, harness
from bots.match import BotSpec, MatchSpec, TimeControl, play_games
from games import FORFEITS

HERE = Path(__file__).resolve().parent
OPPONENTS = ("house:random", "house:greedy")
GAME_COUNTS = (10, 20, 30, 40)
SCALE = 100  # slow_long's sleep and the time control are divided by this


def first_forfeit(path: Path, opponent: str, games: int, seed: str, time_control: TimeControl) -> int | None:
    """The 1-based number of the first game the candidate (bot 0) forfeits, or None."""
    spec = MatchSpec(
        game="face-to-face",
        bots=[BotSpec(str(path)), BotSpec(opponent)],
        games=games,
        seed=seed,
        duplicate=True,
        sandbox=False,
        time_control=time_control,
        max_failures=1,
    )
    for result in play_games(spec):
        outcome = result.outcome
        if outcome.termination in FORFEITS and outcome.seat is not None and result.seat_bots[outcome.seat] == 0:
            return result.index + 1
    return None


def written(folder: Path, name: str, **replace: str) -> Path:
    path = folder / f"{name}.py"
    path.write_bytes(broken_bots.source(name, **replace))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=40, help="seeds, each standing for one upload (default 40)")
    parser.add_argument("--games", type=int, default=40, help="games against each opponent (default 40)")
    parser.add_argument("--league-games", type=int, default=20, help="the league's ARENA_VALIDATION_GAMES (20)")
    args = parser.parse_args()
    print(f"load average before: {harness.loadavg()}")
    normal = TimeControl(turn=1.0, bank=10.0, startup=5.0)
    scaled = TimeControl(turn=1.0 / SCALE, bank=10.0 / SCALE, startup=5.0)
    all_caught = True
    with tempfile.TemporaryDirectory() as folder:
        bots = {
            "illegal_sometimes": (written(Path(folder), "illegal_sometimes"), normal),
            "crash_after": (written(Path(folder), "crash_after"), normal),
            "slow_long": (
                written(Path(folder), "slow_long", **{"THINK_SECONDS = 3.0": f"THINK_SECONDS = {3 / SCALE}"}),
                scaled,
            ),
        }
        for name, (path, time_control) in bots.items():
            started = time.perf_counter()
            caught_at: list[int | None] = []
            for upload in range(args.uploads):
                firsts = [
                    first_forfeit(path, opponent, args.games, f"bench-validate-{upload}-{opponent}", time_control)
                    for opponent in OPPONENTS
                ]
                found = [first for first in firsts if first is not None]
                caught_at.append(min(found) if found else None)
                by_opponent = ", ".join(f"{o}: {f if f else '-'}" for o, f in zip(OPPONENTS, firsts, strict=True))
                print(f"  {name} upload {upload + 1:2d}: first forfeit at game ({by_opponent})")
            shares = []
            for count in GAME_COUNTS:
                if count > args.games:
                    continue
                caught = sum(1 for first in caught_at if first is not None and first <= count)
                shares.append(f"{count} games a side: {caught}/{args.uploads}")
            league = sum(1 for first in caught_at if first is not None and first <= args.league_games)
            ok = league == args.uploads
            all_caught &= ok
            print(f"{name}: caught by {'; '.join(shares)} ({time.perf_counter() - started:.1f} s)")
            print(f"  at the league's {args.league_games} games a side: {league}/{args.uploads} {harness.verdict(ok)}")
        timings = []
        for upload in range(min(args.uploads, 5)):
            started = time.perf_counter()
            for opponent in OPPONENTS:
                first_forfeit(
                    broken_bots.GREEDY, opponent, args.league_games, f"bench-clean-{upload}-{opponent}", normal
                )
            timings.append(time.perf_counter() - started)
        print(
            f"clean greedy, {args.league_games} games a side in this process: "
            f"{min(timings):.2f}-{max(timings):.2f} s over {len(timings)} uploads"
        )
    print(f"every broken bot caught at the league's game count: {harness.verdict(all_caught)}")
    print(f"load average after: {harness.loadavg()}")


if __name__ == "__main__":
    main()
