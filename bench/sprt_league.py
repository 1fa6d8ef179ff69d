"""Version tests through the league (issue 23): how long the expert-vs-greedy test takes to its verdict, and how fast
a test plays against ladder matches of the same bots.

    python -m bench.sprt_league                     # PostgreSQL + Redis on 127.0.0.1, one worker of 2 processes
    python -m bench.sprt_league --repeat 3 --concurrency 2

Each repeat runs in a fresh Python process on a fresh PostgreSQL database and its own Celery queues: the house
bots `expert` and `greedy` are uploaded as ordinary bots (their source files through the league's upload check; the
expert as its Face to Face specialist module, which is what it plays there), validated like any upload, so the
worker plays them in the bubblewrap sandbox; then
1. test: their owner starts the default test (expert's upload as NEW, greedy's as BASE; normalized Elo, H0 = 0,
   H1 = 5, alpha = beta = 0.05) through `versiontests.running.start`; the clock runs from the start until the test
   has its verdict; games/s counts every test game stored by then;
2. ladder: as many games of the same two uploads as the test played, as rated ladder matches of ARENA_LADDER_GAMES
   games (duplicate, as the ladder plays them), all queued at once; the clock runs until the last is stored.
Goals, judged PASS or MISS: the verdict is H1 within 120 s, and the test's games/s is at least 0.9 of the ladder's.
The load average is printed beside each run (the machine is shared: figures move with it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import (
    ROOT,
    as_in_production,
    await_validation,
    drop_postgres,
    fresh_postgres,
    loadavg,
    start_worker,
    stop_worker,
    verdict,
)

VERDICT_SECONDS = 120.0
RATE_SHARE = 0.9


def run_once(args: argparse.Namespace, data_dir: Path, database_url: str) -> dict:
    """One measured run in this process (Django set up on a fresh database)."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=args.broker_url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_QUEUE=f"bench-sprt-{os.getpid()}",
        ARENA_LADDER_MAX_PENDING="0",  # no scheduled ladder matches beside the measured ones
        ARENA_SANDBOX="1",
        LOG_LEVEL="WARNING",
        **as_in_production(),
    )
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from league.arena import queue
    from league.arena.lib import seeds
    from league.arena.models import Game, Match, VersionTest
    from league.arena.versiontests import running

    call_command("migrate", interactive=False, verbosity=0)
    expert, greedy = uploaded_bots()
    log_path = data_dir / "worker.log"
    worker = start_worker(args.concurrency, log_path)
    try:
        await_validation([expert, greedy], worker, log_path, args.timeout)
        new, base = expert.versions.get(), greedy.versions.get()

        def alive() -> None:
            if worker.poll() is not None:
                raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")

        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        test = running.start(expert.owner, new, base)
        while not VersionTest.objects.filter(pk=test.pk, status__in=["done", "failed", "cancelled"]).exists():
            alive()
            if time.perf_counter() - started > args.timeout:
                raise SystemExit(f"no verdict after {args.timeout:.0f} s")
            time.sleep(0.05)
        test_seconds = time.perf_counter() - started
        test.refresh_from_db()
        test_games = Game.objects.filter(match__version_test=test).count()
        status = running.status_of(test)

        per_match = settings.ARENA_LADDER_GAMES
        count = max(1, round(status.counts.games / per_match))
        planned = [
            (
                Match(
                    kind=Match.Kind.LADDER,
                    game="face-to-face",
                    games=per_match,
                    seed=seeds.random_seed(),
                    duplicate=True,
                    turn_seconds=settings.ARENA_TURN_SECONDS,
                    bank_seconds=settings.ARENA_BANK_SECONDS,
                    startup_seconds=settings.ARENA_STARTUP_SECONDS,
                ),
                [new, base],
            )
            for _ in range(count)
        ]
        started = time.perf_counter()
        ladder = Match.objects.bulk_create_with_entries(planned)
        for match in ladder:
            queue.play_match(match.pk)
        ids = [match.pk for match in ladder]
        while Match.objects.filter(pk__in=ids, status__in=["queued", "running"]).exists():
            alive()
            if time.perf_counter() - started > args.timeout:
                raise SystemExit(f"ladder matches not played after {args.timeout:.0f} s")
            time.sleep(0.05)
        ladder_seconds = time.perf_counter() - started
        ladder_games = Game.objects.filter(match__in=ids).count()
        load_after = os.getloadavg()[0]
    finally:
        stop_worker(worker)
    return {
        "verdict": test.verdict,
        "status": test.status,
        "sentence": running.sentence(test),
        "counted_games": status.counts.games,
        "test_games": test_games,
        "batches": test.batches,
        "test_seconds": round(test_seconds, 2),
        "test_games_per_second": round(test_games / test_seconds, 2),
        "ladder_games": ladder_games,
        "ladder_seconds": round(ladder_seconds, 2),
        "ladder_games_per_second": round(ladder_games / ladder_seconds, 2),
        "load": [round(load_before, 2), round(load_after, 2)],
    }


def uploaded_bots() -> list:
    """The expert's Face to Face specialist and greedy, each uploaded as a one-file bot by the user "bench" (the
    house expert itself only hands each game to a specialist module, which an upload cannot import)."""
    from django.contrib.auth import get_user_model

    from league.arena.models import Bot
    from league.arena.uploads.intake import add_version, inspect_upload

    owner = get_user_model().objects.create(username="bench")
    bots = []
    for name, module in (("expert", "bots.house.expert_face_to_face"), ("greedy", "bots.house.greedy")):
        source = Path(importlib.util.find_spec(module).origin).read_bytes()
        bot = Bot.objects.create(owner=owner, name=name)
        add_version(bot, inspect_upload(f"{name}.py", source))
        bots.append(bot)
    return bots


def run_in_child(args: argparse.Namespace, index: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="arena-bench-sprt-") as data_dir:
        url = fresh_postgres(args.database_url, f"arena_bench_sprt_{os.getpid()}_{index}")
        try:
            child = subprocess.run(
                [sys.executable, "-m", __spec__.name, *sys.argv[1:], "--run", "--data-dir", data_dir,
                 "--run-database-url", url],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )  # fmt: skip
        finally:
            drop_postgres(url)
    if child.returncode != 0:
        raise SystemExit(f"run {index} failed:\n{child.stdout[-2000:]}{child.stderr[-3000:]}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1, help="measured runs (default 1)")
    parser.add_argument("--concurrency", type=int, default=2, help="worker pool processes (default 2)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before a phase is given up")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench_sprt")
    parser.add_argument("--broker-url", default=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--run-database-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(run_once(args, Path(args.data_dir), args.run_database_url)))
        return
    print(f"expert vs greedy, uploaded and sandboxed, one worker of {args.concurrency} processes; load {loadavg()}")
    results = []
    for index in range(args.repeat):
        result = run_in_child(args, index)
        results.append(result)
        ratio = result["test_games_per_second"] / result["ladder_games_per_second"]
        print(
            f"run {index + 1}: {result['sentence']}; verdict in {result['test_seconds']:.1f} s "
            f"({result['test_games']} test games stored, {result['batches']} batches counted): "
            f"{result['test_games_per_second']:.2f} games/s; ladder {result['ladder_games']} games in "
            f"{result['ladder_seconds']:.1f} s: {result['ladder_games_per_second']:.2f} games/s; "
            f"test/ladder {ratio:.2f}; load {result['load'][0]:.2f} -> {result['load'][1]:.2f}"
        )
    seconds = [r["test_seconds"] for r in results]
    ratios = [r["test_games_per_second"] / r["ladder_games_per_second"] for r in results]
    all_h1 = all(r["verdict"] == "H1" for r in results)
    print(
        f"verdict H1 in every run, within {VERDICT_SECONDS:.0f} s (median {statistics.median(seconds):.1f} s, "
        f"range {min(seconds):.1f}-{max(seconds):.1f}): "
        f"{verdict(all_h1 and statistics.median(seconds) <= VERDICT_SECONDS)}"
    )
    print(
        f"test games/s >= {RATE_SHARE} of ladder games/s (median {statistics.median(ratios):.2f}, "
        f"range {min(ratios):.2f}-{max(ratios):.2f}): {verdict(statistics.median(ratios) >= RATE_SHARE)}"
    )
    print(f"load at the end {loadavg()}")


if __name__ == "__main__":
    main()
