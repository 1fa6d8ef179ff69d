"""Benchmark: a double round robin of house bots played through Celery workers.

    python -m bench.tournament_throughput               # PostgreSQL + Redis on 127.0.0.1 (production set-up)
    python -m bench.tournament_throughput --embedded    # SQLite + the filesystem broker (the demo set-up)
    python -m bench.tournament_throughput --bots 10 --games 100 --workers 1,2 --house random,greedy
    python -m bench.tournament_throughput --sandboxed --games 10 --workers 2 --repeat 3

Each run gets a fresh database and queue, registers `--bots` ladder members cycling over the
`--house` bots, starts a tournament (all its matches queued at once) and times it. The clock starts
when the tournament starts (its matches queued; the worker is up, and sandboxed, the uploads are
validated) and stops once a committed rating refit covers every game of it: the time the last match
is stored is printed beside it. games/s is over the whole clock. By default it prints one line per
worker count and the speed-up.

`--sandboxed` compares the sandbox with in-process play instead: each repeat plays the same tournament
twice per worker count, once with the house bots in-process and once with uploaded copies of them (each
house bot's source file uploaded through the league's upload check and validated like any upload, so
the worker runs it in the bubblewrap sandbox), alternating which goes first. It prints both games/s, the
ratio, and the load average beside each run, then the median and minimum ratio over the repeats; and the
same ratio in games per CPU second of the worker's process tree (sandboxes included, the database not),
which moves far less with the machine's load than wall time does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench.harness import (
    as_in_production,
    await_validation,
    drop_postgres,
    fresh_postgres,
    house_participants,
    start_worker,
    stop_worker,
    tree_cpu_seconds,
    uploaded_participants,
    verdict,
)

ROOT = Path(__file__).resolve().parents[1]
MODES = ("in-process", "sandboxed")
# Sandboxed games/s at least this share of in-process, at the ladder's match size and at 100 a pairing: issue 8's,
# and issue 20's after the stop check (a per-turn cost, which weighs most in long matches)
SANDBOXED_GOALS = {"issue 8": {10: 0.5, 100: 0.6}, "issue 20": {10: 0.6, 100: 0.5}}
CLOCK = (
    "clock: from the tournament's start (all matches queued; the worker up and, sandboxed, the uploads validated) "
    "until a committed rating refit covers every game of it"
)


def run_once(args: argparse.Namespace, workers: int, mode: str, data_dir: Path, database_url: str) -> dict:
    """One timed tournament in this process (Django set up on a fresh database)."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database_url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_QUEUE=f"bench-{os.getpid()}-{workers}",
        ARENA_LADDER_MAX_PENDING="0",
        ARENA_SANDBOX="1",
        ARENA_WORKER_ONE_CPU="1",  # one worker, its pool processes on CPUs of their own: both modes alike
        LOG_LEVEL="WARNING",
        **as_in_production(),
    )
    if args.broker_url:
        os.environ["CELERY_BROKER_URL"] = args.broker_url
    else:
        os.environ.pop("CELERY_BROKER_URL", None)  # the embedded default: a filesystem broker in data_dir
    import django

    django.setup()
    from django.core.management import call_command

    from league.arena.models import Tournament, TournamentEntry
    from league.arena.tournaments import starting as tournaments

    call_command("migrate", interactive=False, verbosity=0)
    refs = args.house.split(",")
    tournament = Tournament.objects.create(
        name="bench", format="double-round-robin", games_per_pairing=args.games, duplicate=True
    )
    bots = house_participants(refs, args.bots) if mode == "in-process" else uploaded_participants(refs, args.bots)
    TournamentEntry.objects.bulk_create([TournamentEntry(tournament=tournament, bot=bot) for bot in bots])

    log_path = data_dir / f"worker-{workers}.log"
    worker = start_worker(workers, log_path)
    try:
        if mode == "sandboxed":
            await_validation(bots, worker, log_path, args.timeout)
        load = os.getloadavg()[0]
        cpu_before = tree_cpu_seconds(worker.pid)
        started = time.perf_counter()
        matches = tournaments.start(tournament.pk)
        alive = worker_alive(worker, log_path)
        await_condition(lambda: finished(tournament), alive, started, args.timeout, "the last match stored")
        stored = time.perf_counter() - started
        await_condition(lambda: refitted(tournament), alive, started, args.timeout, "the refit covering every game")
        elapsed = time.perf_counter() - started
        cpu = tree_cpu_seconds(worker.pid) - cpu_before
        load = max(load, os.getloadavg()[0])
    finally:
        stop_worker(worker)
    # the worker and its pool once reaped: start-up (and, sandboxed, the validation games) included
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    played, planned = tournament.progress()
    failed = tournament.matches.filter(status="failed").count()
    return {
        "mode": mode,
        "workers": workers,
        "matches": len(matches),
        "games": played,
        "planned": planned,
        "failed_matches": failed,
        "forfeits": forfeited_games(tournament),
        "stored_seconds": round(stored, 2),
        "seconds": round(elapsed, 2),
        "games_per_second": round(played / elapsed, 1),
        "worker_cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "games_per_cpu_second": round(played / cpu, 1),
        "load": round(load, 2),
    }


def finished(tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.status == "finished"


def refitted(tournament) -> bool:
    """Whether a committed refit covers every rated game of the tournament (the only games of the bench's league)."""
    from league.arena.models import Game, RatingFit

    fit = RatingFit.objects.filter(game=tournament.game).first()
    rated = Game.objects.filter(match__tournament=tournament, match__rated=True).count()
    return fit is not None and not fit.pending and fit.claim_token is None and fit.games >= rated


def worker_alive(worker: subprocess.Popen, log_path: Path):
    def check() -> None:
        if worker.poll() is not None:
            raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")

    return check


def await_condition(condition, check, started: float, timeout: float, what: str) -> None:
    """Poll `condition` every 50 ms until it holds; `check` raises if what should make it hold has died."""
    while not condition():
        check()
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def forfeited_games(tournament) -> int:
    """Games of the tournament that a bot lost by failing (crash, timeout...): none is expected here."""
    from league.arena.models import FORFEITS, Game

    return Game.objects.filter(match__tournament=tournament, termination__in=FORFEITS).count()


def run_in_child(args: argparse.Namespace, workers: int, mode: str) -> dict:
    """One run in a fresh Python process, on a fresh database and data folder."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as data_dir:
        if args.embedded:
            url = f"sqlite:///{data_dir}/bench.sqlite3"
        else:
            url = fresh_postgres(args.database_url, f"arena_bench_{os.getpid()}_{workers}")
        try:
            child = subprocess.run(
                [sys.executable, "-m", __spec__.name, *sys.argv[1:], "--run", str(workers), "--mode", mode,
                 "--data-dir", data_dir, "--run-database-url", url],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )  # fmt: skip
        finally:
            if not args.embedded:
                drop_postgres(url)
    if child.returncode != 0:
        raise SystemExit(f"{mode} run with {workers} worker(s) failed:\n{child.stdout[-2000:]}{child.stderr[-3000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def describe(result: dict) -> str:
    return (
        f"{result['mode']:>10}, {result['workers']} worker process(es): {result['games']} games stored in "
        f"{result['stored_seconds']:.1f} s, refit covering them at {result['seconds']:.1f} s = "
        f"{result['games_per_second']:.1f} games/s, worker CPU "
        f"{result['worker_cpu_seconds']:.1f} s ({result['games_per_cpu_second']:.0f} games per CPU second while "
        f"timed), load {result['load']:.2f} "
        f"({result['failed_matches']} failed matches, {result['forfeits']} forfeited games)"
    )


def compare_workers(args: argparse.Namespace, counts: list[int]) -> None:
    results = []
    for workers in counts:
        result = run_in_child(args, workers, "in-process")
        results.append(result)
        print(describe(result), flush=True)
    base = results[0]
    for result in results[1:]:
        speedup = base["seconds"] / result["seconds"]
        print(f"speed-up {result['workers']} vs {base['workers']} worker(s): {speedup:.2f}x")


def compare_sandboxed(args: argparse.Namespace, counts: list[int]) -> None:
    """In-process and sandboxed tournaments side by side, alternating which runs first."""
    ratios: dict[int, list[float]] = {workers: [] for workers in counts}
    cpu_ratios: dict[int, list[float]] = {workers: [] for workers in counts}
    for repeat in range(args.repeat):
        for workers in counts:
            order = MODES if repeat % 2 == 0 else tuple(reversed(MODES))
            results = {}
            for mode in order:
                results[mode] = run_in_child(args, workers, mode)
                print(describe(results[mode]), flush=True)
            ratio = results["sandboxed"]["games_per_second"] / results["in-process"]["games_per_second"]
            ratios[workers].append(ratio)
            cpu_ratio = results["sandboxed"]["games_per_cpu_second"] / results["in-process"]["games_per_cpu_second"]
            cpu_ratios[workers].append(cpu_ratio)
            print(f"repeat {repeat + 1}, {workers} worker(s): sandboxed / in-process = {ratio:.3f} in games/s, "
                  f"{cpu_ratio:.3f} in games per worker CPU second", flush=True)  # fmt: skip
    for workers, values in ratios.items():
        print(
            f"{workers} worker(s), {args.games} games per pairing: sandboxed / in-process median "
            f"{statistics.median(values):.3f}, min {min(values):.3f}, max {max(values):.3f} "
            f"over {len(values)} repeat(s); in games per worker CPU second median "
            f"{statistics.median(cpu_ratios[workers]):.3f}; load now {os.getloadavg()[0]:.2f}"
        )
        median = statistics.median(values)
        for issue, goals in SANDBOXED_GOALS.items():
            goal = goals.get(args.games)
            if goal is None:
                sizes = ", ".join(f"{share} at {games}" for games, share in goals.items())
                print(f"  no goal at {args.games} games per pairing ({issue} asks sandboxed / in-process >= {sizes})")
                continue
            print(
                f"  {verdict(median >= goal)}  {issue}: sandboxed >= {goal} of in-process games/s at "
                f"{args.games} games per pairing, {workers} worker(s): median {median:.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=10, help="tournament participants (default 10)")
    parser.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    parser.add_argument("--workers", default=None, help="worker process counts (default 1,2; --sandboxed: 2)")
    parser.add_argument("--house", default="random,greedy", help="house bots the participants cycle over")
    parser.add_argument("--sandboxed", action="store_true", help="compare uploaded (sandboxed) with house bots")
    parser.add_argument("--repeat", type=int, default=1, help="--sandboxed: comparisons per worker count")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--embedded", action="store_true", help="SQLite and the filesystem broker instead")
    parser.add_argument("--timeout", type=float, default=1800, help="give up on a run after this many seconds")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)  # internal: one run in a child process
    parser.add_argument("--mode", choices=MODES, default="in-process", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--run-database-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.embedded:
        args.broker_url = ""

    if args.run is not None:
        print(json.dumps(run_once(args, args.run, args.mode, Path(args.data_dir), args.run_database_url)))
        return

    counts = [int(n) for n in (args.workers or ("2" if args.sandboxed else "1,2")).split(",")]
    pairings = args.bots * (args.bots - 1)
    setup = "SQLite + filesystem broker" if args.embedded else f"PostgreSQL + {urlsplit(args.broker_url).scheme}"
    print(
        f"double round robin: {args.bots} bots ({args.house}), {pairings} matches x {args.games} games "
        f"= {pairings * args.games} games; {setup}; load {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs",
        flush=True,
    )
    print(CLOCK, flush=True)
    if args.sandboxed:
        from bots.sandbox import cgroups

        moves = "a cgroup mount has favordynmods" if cgroups.favors_moves() else "no cgroup mount has favordynmods"
        print(f"sandbox cgroups: {moves} (docs/operators.md: without it, spaced starts wait)", flush=True)
        compare_sandboxed(args, counts)
    else:
        compare_workers(args, counts)


if __name__ == "__main__":
    main()
