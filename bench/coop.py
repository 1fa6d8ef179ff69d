"""Benchmark: one solo season of The Game's challenge ladder played through Celery workers.

    python -m bench.coop                          # 1,000 deals, 10 bots, 2 worker processes, PostgreSQL + Redis
    python -m bench.coop --deals 200 --workers 2  # a shorter run

The bots: the house bots random, greedy and expert (the expert is the ladder's permanent member), and
sandboxed uploads of the house bots' single files (greedy.py, random_bot.py) sent through the normal upload
path, each validated by the worker before the season starts. The clock starts when the season starts (the
worker's beat then queues its chunks) and stops when every deal of every bot is stored and the last refit of
the season's ratings is done. Printed: the time, games/s, the worker's CPU time, the refit time (one fit of
the season's pair counts, and a whole refit with its writes, min/median of 5), the load average at both ends,
and PASS/MISS against the goal (--goal seconds, 300 by default).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench import harness

ROOT = Path(__file__).resolve().parents[1]
HOUSE_FILES = {"greedy": "greedy.py", "random": "random_bot.py"}


def start_worker(workers: int, data_dir: Path) -> tuple[subprocess.Popen, Path]:
    """The league's worker with its beat (the season's chunks are scheduled by the clock)."""
    log_path = data_dir / "worker.log"
    worker = harness.start_worker(workers, log_path, "--beat", "--schedule", str(data_dir / "beat"))
    return worker, log_path


def wait(what: str, check, worker: subprocess.Popen, log_path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if worker.poll() is not None:
            raise SystemExit(f"the worker died while waiting for {what}:\n{log_path.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.25)


def register_bots(count: int) -> list[int]:
    """The house bots, then uploads of their files (greedy, random, ...) until `count` ladder bots exist."""
    from django.contrib.auth import get_user_model

    import bots.house
    from league.arena.models import Bot
    from league.arena.uploads.house import house_version
    from league.arena.uploads.intake import add_version, inspect_upload

    members = [house_version(f"house:{name}", "the-game").pk for name in ("expert", "greedy", "random")]
    owner = get_user_model().objects.create(username="bench")
    folder = Path(bots.house.__file__).parent
    names = list(HOUSE_FILES)
    for i in range(count - len(members)):
        name = names[i % len(names)]
        source = (folder / HOUSE_FILES[name]).read_bytes()
        bot = Bot.objects.create(owner=owner, name=f"{name}-upload-{i}", game="the-game")
        add_version(bot, inspect_upload("bot.py", source))
    return members


def run(args: argparse.Namespace, data_dir: Path, database_url: str) -> dict:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database_url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_QUEUE=f"bench-coop-{os.getpid()}",
        ARENA_LADDER_MAX_PENDING="0",
        ARENA_COOP_MAX_PENDING=str(args.pending),
        ARENA_COOP_INTERVAL="1",
        ARENA_COOP_TEAM_SIZES="1",
        CELERY_BROKER_URL=args.broker_url,
        LOG_LEVEL="WARNING",
        **harness.as_in_production(),
    )
    import django

    django.setup()
    from django.core.management import call_command

    from league.arena.coop import challenges
    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool
    from league.arena.models import Bot, BotVersion, DealResult, RatingFit

    call_command("migrate", interactive=False, verbosity=0)
    worker, log_path = start_worker(args.workers, data_dir)
    try:
        register_bots(args.bots)
        wait(
            "the uploads' validation",
            lambda: not BotVersion.objects.filter(status="validating").exists(),
            worker,
            log_path,
            300,
        )
        failed = list(BotVersion.objects.filter(status="failed").values_list("bot__name", "failure_reason"))
        if failed:
            raise SystemExit(f"uploads failed validation: {failed}")
        bots = Bot.objects.filter(game="the-game", active_version__isnull=False).count()
        load_before = harness.loadavg()
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        season = challenges.start_season("the-game", deals=args.deals, chunk=args.chunk, team_sizes=[1])
        pool = RatingPool.coop(season, 1)
        games = bots * args.deals
        comparisons = bots * (bots - 1) // 2 * args.deals
        wait(
            "every deal",
            lambda: DealResult.objects.filter(season=season).count() == games,
            worker,
            log_path,
            args.timeout,
        )
        stored = time.perf_counter() - started
        wait(
            "the last refit",
            lambda: RatingFit.objects.filter(
                game=pool.key, games=comparisons, pending=False, claim_token=None
            ).exists(),
            worker,
            log_path,
            120,
        )
        elapsed = time.perf_counter() - started
        load_after = harness.loadavg()
    finally:
        harness.stop_worker(worker)
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    fits, refit_runs = [], []
    for _ in range(5):
        counts, _ = refits.pair_counts(pool)
        began = time.process_time()
        refits.fit(counts)
        fits.append(time.process_time() - began)
        began = time.perf_counter()
        refits.refit(pool)
        refit_runs.append(time.perf_counter() - began)
    return {
        "bots": bots,
        "games": games,
        "seconds": elapsed,
        "stored_seconds": stored,
        "games_per_second": games / stored,
        "worker_cpu_seconds": cpu,
        "fit_cpu_ms": (min(fits) * 1000, statistics.median(fits) * 1000),
        "refit_ms": (min(refit_runs) * 1000, statistics.median(refit_runs) * 1000),
        "load": (load_before, load_after),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="deals in the season (default 1000)")
    parser.add_argument("--chunk", type=int, default=100, help="deals per match (default 100)")
    parser.add_argument("--bots", type=int, default=10, help="ladder bots: 3 house bots + uploads (default 10)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--pending", type=int, default=8, help="ARENA_COOP_MAX_PENDING (default 8)")
    parser.add_argument("--goal", type=float, default=300.0, help="PASS if done within this many seconds")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--timeout", type=float, default=1800, help="give up after this many seconds")
    args = parser.parse_args()
    if args.bots < 3:
        raise SystemExit("--bots counts the 3 house bots: give at least 3")
    with tempfile.TemporaryDirectory(prefix="arena-bench-coop-") as data_dir:
        url = harness.fresh_postgres(
            args.database_url, f"{urlsplit(args.database_url).path.lstrip('/')}_coop_{os.getpid()}"
        )
        try:
            result = run(args, Path(data_dir), url)
        finally:
            harness.drop_postgres(url)
    verdict = harness.verdict(result["seconds"] <= args.goal)
    print(
        "clock: from the season's start (the worker up, the uploads validated) until every deal is stored, and on "
        "until a committed refit covers them all; the refit figures: refits.fit's CPU time, a whole refit's wall time"
    )
    print(
        f"solo season of The Game: {result['bots']} bots x {args.deals} deals = {result['games']} games, "
        f"{args.chunk} deals per match, {args.workers} worker processes\n"
        f"all games stored in {result['stored_seconds']:.1f} s = {result['games_per_second']:.1f} games/s; "
        f"ratings refit done at {result['seconds']:.1f} s; worker CPU {result['worker_cpu_seconds']:.1f} s\n"
        f"refit of {result['bots'] * (result['bots'] - 1) // 2} pairs: fit CPU {result['fit_cpu_ms'][0]:.1f} / "
        f"{result['fit_cpu_ms'][1]:.1f} ms, whole refit (read, fit, write) {result['refit_ms'][0]:.1f} / "
        f"{result['refit_ms'][1]:.1f} ms (min / median of 5)\n"
        f"load average before {result['load'][0]}, after {result['load'][1]}\n"
        f"goal <= {args.goal:.0f} s: {verdict} ({result['seconds']:.1f} s)"
    )


if __name__ == "__main__":
    main()
