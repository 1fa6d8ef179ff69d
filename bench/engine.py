"""Engine benchmarks for issue 2: throughput, and the house experts' strength and speed.

    python -m bench.engine                 # everything, at the issue's sizes (takes a while)
    python -m bench.engine --only speed    # Face to Face random vs random games per second
    python -m bench.engine --only cli      # the same through `python -m bots play`, process start included
    python -m bench.engine --only cli --compare /work/main   # ... and the CLI of another checkout, side by side
    python -m bench.engine --games 1000    # smaller strength runs
    python -m bench.engine --jobs 2        # the strength runs on two processes (the same seeded games)

Throughput runs on one core in this process with logging on: every game builds its full log and
serialises it to JSON (games.dumps_log), as the match runner does. The CLI figures are the games of one
`python -m bots play house:random house:random --game face-to-face --games N` over the CPU time of its whole process
(getrusage of the child: start-up, imports, games, logs, summary), pinned to the same core as the engine loop, which
runs in turn with it: once as the league runs matches (every log built and serialised, as it is stored), and once
with `--log-dir` (each log also written to its own file, in a tmpfs folder where there is one).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import games
from bench import harness
from bots.house import load_house_bot
from bots.summary import wilson_interval

ROOT = Path(__file__).resolve().parent.parent
GAMES_PER_CPU_SECOND_GOAL = 2000  # issue 8: Face to Face random vs random on one core, logs on
COOP_WIN_GOALS = {("the-game", 1): 0.20, ("the-game", 2): 0.30}  # the expert's win rate, issue 2


def pin_to_one_core() -> int | None:
    """Pin this process (and so its children) to one core; return the core."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


def play_game(state: games.GameState, bots: list, seed: str, timings: list[float] | None = None) -> games.GameState:
    for seat, bot in enumerate(bots):
        if hasattr(bot, "new_game"):
            bot.new_game({"game": state.game_id, "players": state.players, "seat": seat, "seed": seed, "options": {}})
    while state.outcome is None:
        seat = state.to_move
        observation = state.observation(seat)
        started = time.perf_counter()
        turn = bots[seat].play(observation)
        elapsed = time.perf_counter() - started
        if timings is not None:
            timings.append(elapsed)
        state.push(turn, elapsed * 1000)
    return state


def face_to_face_throughput(seconds: float) -> dict:
    """Random vs random Face to Face games per second, logs included."""
    bots = [load_house_bot("random"), load_house_bot("random")]
    count = turns = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            seed = f"speed:{count}"
            state = play_game(games.new_game("face-to-face", seed=seed, start_seat=count % 2), bots, seed)
            state.log.dumps()
            turns += state.turn_number
            count += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "games": count,
        "seconds": round(elapsed, 2),
        "games_per_second": round(count / elapsed),
        "games_per_cpu_second": round(count / cpu),
        "mean_turns": round(turns / count, 1),
    }


def cli_throughput(count: int, tree: Path, core: int | None, log_files: bool) -> float:
    """Games per CPU-second of one `python -m bots play` run of `count` games from the checkout `tree`."""
    command = [sys.executable, "-m", "bots", "play", "house:random", "house:random", "--game", "face-to-face"]
    command += ["--games", str(count), "--seed", "bench"]
    if core is not None and shutil.which("taskset"):
        command = ["taskset", "-c", str(core), *command]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(prefix="bench-logs-", dir=shm if shm.is_dir() else None) as logs:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        options = ["--log-dir", logs] if log_files else []
        subprocess.run([*command, *options], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        written = len(os.listdir(logs))
    if written != (count if log_files else 0):
        raise RuntimeError(f"the CLI in {tree} wrote {written} log files for {count} games")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return count / cpu


def cli_versus_engine(count: int, repeat: int, seconds: float, compare: list[Path]) -> None:
    """The CLI of this checkout (and of each `compare` checkout) and the engine loop, taking turns `repeat` times."""
    core = pin_to_one_core()
    load_before = os.getloadavg()[0]
    trees = [ROOT, *compare]
    runs = [(f"CLI {tree}" + (" --log-dir" if files else ""), tree, files) for tree in trees for files in (False, True)]
    figures: dict[str, list[float]] = {"engine loop (in process)": []}
    figures.update({name: [] for name, _, _ in runs})
    for _ in range(repeat):
        figures["engine loop (in process)"].append(face_to_face_throughput(seconds)["games_per_cpu_second"])
        for name, tree, log_files in runs:
            figures[name].append(cli_throughput(count, tree, core, log_files))
    engine = statistics.median(figures["engine loop (in process)"])
    print(f"face-to-face random vs random, games per CPU-second on core {core}, logs on, {repeat} run(s) each:")
    for name, values in figures.items():
        median = statistics.median(values)
        print(f"  {name:<44} min {min(values):6.0f}  median {median:6.0f}  ({median / engine:.2f} of the engine loop)")
    print(
        f"  CLI runs: {count} games each, process start included; "
        f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    cli = statistics.median(figures[runs[0][0]])
    print("  clock: the CPU time (user + system) of each CLI process, its start included; the engine loop's: this "
          "process's CPU time over whole games, each log serialised")  # fmt: skip
    print(
        f"  {harness.verdict(cli >= GAMES_PER_CPU_SECOND_GOAL)}  the CLI without --log-dir (logs built and serialised "
        f"as the league stores them) >= {GAMES_PER_CPU_SECOND_GOAL} games per CPU-second: median {cli:.0f}"
    )


def coop_games(game: str, players: int, seeds: range) -> tuple[list[int], list[float]]:
    """Play the seeded games `seeds` with one expert per seat: (cards left per game, seconds per turn)."""
    bots = [load_house_bot("expert") for _ in range(players)]
    timings: list[float] = []
    scores = []
    for index in seeds:
        seed = f"strength:{index}"
        state = play_game(games.new_game(game, players, seed), bots, seed, timings)
        scores.append(state.outcome.score)
    return scores, timings


def coop_strength(game: str, players: int, count: int, jobs: int = 1) -> dict:
    """The experts' results over games 0..count-1, played by `jobs` processes in chunks (same games for any jobs)."""
    chunk = max(1, min(250, count // (4 * jobs) or 1))
    chunks = [range(start, min(start + chunk, count)) for start in range(0, count, chunk)]
    arguments = ([game] * len(chunks), [players] * len(chunks), chunks)
    if jobs == 1:
        results = list(map(coop_games, *arguments))
    else:
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(coop_games, *arguments))
    scores: list[int] = []
    timings: list[float] = []
    for chunk_scores, chunk_timings in results:
        scores += chunk_scores
        timings += chunk_timings
    wins = scores.count(0)
    low, high = wilson_interval(wins, count)
    return {
        "game": game,
        "players": players,
        "games": count,
        "win_rate": round(wins / count, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "mean_cards_left": round(statistics.fmean(scores), 2),
        "median_cards_left": statistics.median(scores),
        **turn_times(timings),
    }


def face_to_face_strength(deals: int) -> dict:
    """Expert vs greedy over duplicate deals: each deal twice, seats swapped."""
    expert, greedy = load_house_bot("expert"), load_house_bot("greedy")
    expert_timings: list[float] = []
    wins = 0
    for deal in range(deals):
        seed = f"duplicate:{deal}"
        for expert_seat in (0, 1):
            bots = [expert, greedy] if expert_seat == 0 else [greedy, expert]
            state = games.new_game("face-to-face", seed=seed, start_seat=0)
            timings: list[float] = []
            play_game(state, bots, seed, timings)
            # timings alternate with the seats from the start seat 0
            expert_timings.extend(t for i, t in enumerate(timings) if i % 2 == expert_seat)
            wins += state.outcome.winner == expert_seat
    count = 2 * deals
    low, high = wilson_interval(wins, count)
    return {
        "games": count,
        "expert_wins": wins,
        "win_rate": round(wins / count, 4),
        "ci95": [round(low, 4), round(high, 4)],
        **turn_times(expert_timings),
    }


def turn_times(timings: list[float]) -> dict:
    if not timings:
        return {}
    return {
        "turn_ms_median": round(1000 * statistics.median(timings), 3),
        "turn_ms_p99": round(1000 * statistics.quantiles(timings, n=100)[98], 3) if len(timings) > 1 else None,
        "turn_ms_max": round(1000 * max(timings), 3),
        "turns_timed": len(timings),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["speed", "cli", "coop", "face-to-face"], help="run one part")
    parser.add_argument("--cli-games", type=int, default=5_000, help="games per CLI run (default 5000)")
    parser.add_argument("--repeat", type=int, default=3, help="CLI and engine-loop runs, taken in turn (default 3)")
    parser.add_argument(
        "--compare", type=Path, action="append", default=[], help="also time the CLI of this checkout (repeatable)"
    )
    parser.add_argument("--games", type=int, default=10_000, help="co-op games per configuration (default 10000)")
    parser.add_argument(
        "--deals", type=int, default=1_000, help="Face to Face duplicate deals (default 1000 = 2000 games)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for the co-op strength runs (default 1)")
    parser.add_argument("--seconds", type=float, default=10.0, help="throughput run length")
    parser.add_argument(
        "--configs",
        default="the-game:1,the-game:2,the-game:3,the-game:4,the-game:5,extreme:1",
        help="co-op configurations GAME:PLAYERS to measure (default: all six)",
    )
    args = parser.parse_args()
    if args.only in (None, "speed"):
        pin_to_one_core()  # the throughput figure is per core; the strength runs may use any core
        result = face_to_face_throughput(args.seconds)
        print(
            f"face-to-face random vs random, one core, logs on (clock: this process's CPU and wall time over whole "
            f"games, each log serialised): {result['games_per_second']} games/s wall-clock, "
            f"{result['games_per_cpu_second']} games per CPU-second ({result['games']} games in "
            f"{result['seconds']} s, {result['mean_turns']} turns/game; load average {os.getloadavg()[0]:.1f})"
        )
        ok = result["games_per_cpu_second"] >= GAMES_PER_CPU_SECOND_GOAL
        print(f"  {harness.verdict(ok)}  >= {GAMES_PER_CPU_SECOND_GOAL} games per CPU-second")
    if args.only in (None, "cli"):
        cli_versus_engine(args.cli_games, args.repeat, min(args.seconds, 3.0), args.compare)
    if args.only in (None, "coop"):
        configurations = [(game, int(players)) for game, players in (c.split(":") for c in args.configs.split(","))]
        for game, players in configurations:
            started = time.perf_counter()
            r = coop_strength(game, players, args.games, args.jobs)
            wall = time.perf_counter() - started
            print(
                f"{game} {players}p expert x{players}: win {100 * r['win_rate']:.2f}% "
                f"(95% CI {100 * r['ci95'][0]:.1f}-{100 * r['ci95'][1]:.1f}%), cards left mean {r['mean_cards_left']} "
                f"median {r['median_cards_left']}, turn ms median {r['turn_ms_median']} p99 {r['turn_ms_p99']} "
                f"max {r['turn_ms_max']} over {r['games']} games ({wall:.0f} s, {args.jobs} job(s), "
                f"load average {os.getloadavg()[0]:.1f}; turn ms: each play() call's wall time)",
                flush=True,
            )
            goal = COOP_WIN_GOALS.get((game, players))
            if goal is not None:
                print(f"  {harness.verdict(r['win_rate'] >= goal)}  win >= {goal:.0%}: {r['win_rate']:.2%}")
    if args.only in (None, "face-to-face"):
        r = face_to_face_strength(args.deals)
        print(
            f"face-to-face expert vs greedy, {r['games']} duplicate games: expert wins {100 * r['win_rate']:.1f}% "
            f"(95% CI {100 * r['ci95'][0]:.1f}-{100 * r['ci95'][1]:.1f}%), turn ms median {r['turn_ms_median']} "
            f"max {r['turn_ms_max']} (turn ms: each of the expert's play() calls, wall time)"
        )
        for ok, goal in (
            (r["win_rate"] >= 0.70, f"expert wins >= 70%: {r['win_rate']:.1%}"),
            (r["turn_ms_median"] <= 20, f"turn median <= 20 ms: {r['turn_ms_median']} ms"),
            (r["turn_ms_max"] <= 200, f"turn max <= 200 ms: {r['turn_ms_max']} ms"),
        ):
            print(f"  {harness.verdict(ok)}  {goal}")


if __name__ == "__main__":
    main()
