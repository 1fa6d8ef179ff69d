"""Benchmark: a double round robin of house bots played through Celery workers, 1 worker vs 2.

    python bench/league.py                       # PostgreSQL + Redis on 127.0.0.1 (production set-up)
    python bench/league.py --embedded            # SQLite + the filesystem broker (the demo set-up)
    python bench/league.py --bots 10 --games 100 --workers 1,2 --house random,greedy

Each run gets a fresh database and queue, registers `--bots` ladder members cycling over the
`--house` bots, starts a tournament (all its matches queued at once) and times it until the last
match is stored, ratings refits included. It prints one line per worker count and the speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]


def run_once(args: argparse.Namespace, workers: int, data_dir: Path, database_url: str) -> dict:
    """One timed tournament in this process (Django set up on a fresh database)."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database_url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_QUEUE=f"bench-{os.getpid()}-{workers}",
        ARENA_LADDER_MAX_PENDING="0",
        LOG_LEVEL="WARNING",
    )
    if args.broker_url:
        os.environ["CELERY_BROKER_URL"] = args.broker_url
    else:
        os.environ.pop("CELERY_BROKER_URL", None)  # the embedded default: a filesystem broker in data_dir
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from bots.house import HOUSE_BOTS
    from league.arena import tournaments
    from league.arena.house import house_sha256
    from league.arena.models import Bot, BotVersion, Tournament, TournamentEntry
    from league.arena.workers import worker_command

    call_command("migrate", interactive=False, verbosity=0)
    owner = get_user_model().objects.create(username="bench")
    refs = args.house.split(",")
    unknown = [ref for ref in refs if ref not in HOUSE_BOTS]
    if unknown:
        raise SystemExit(f"unknown house bots: {', '.join(unknown)}; known: {', '.join(sorted(HOUSE_BOTS))}")
    tournament = Tournament.objects.create(
        name="bench", format="double-round-robin", games_per_pairing=args.games, duplicate=True
    )
    for i in range(args.bots):
        name = refs[i % len(refs)]
        bot = Bot.objects.create(owner=owner, name=f"{name}-{i}", house_ref=f"house:{name}")
        BotVersion.objects.create(bot=bot, number=1, sha256=house_sha256(name), kind="house", status="active")
        TournamentEntry.objects.create(tournament=tournament, bot=bot)

    log_path = data_dir / f"worker-{workers}.log"
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            worker_command(workers, "--queues", os.environ["ARENA_QUEUE"]),
            cwd=ROOT,
            env=dict(os.environ),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while b" ready." not in log_path.read_bytes():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the worker did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        matches = tournaments.start(tournament.pk)
        while True:
            tournament.refresh_from_db()
            if tournament.status == "finished":
                break
            if worker.poll() is not None:
                raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
            if time.perf_counter() - started > args.timeout:
                raise SystemExit(f"not finished after {args.timeout} s: {tournament.progress()}")
            time.sleep(0.2)
        elapsed = time.perf_counter() - started
    finally:
        worker.send_signal(signal.SIGQUIT)
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        worker.wait()
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker and its pool, once reaped
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    played, planned = tournament.progress()
    failed = tournament.matches.filter(status="failed").count()
    return {
        "workers": workers,
        "matches": len(matches),
        "games": played,
        "planned": planned,
        "failed_matches": failed,
        "seconds": round(elapsed, 2),
        "games_per_second": round(played / elapsed, 1),
        "worker_cpu_seconds": round(cpu, 1),
    }


def fresh_postgres(url: str, name: str) -> str:
    import psycopg

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


def drop_postgres(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=10, help="tournament participants (default 10)")
    parser.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    parser.add_argument("--workers", default="1,2", help="worker process counts to compare (default 1,2)")
    parser.add_argument("--house", default="random,greedy", help="house bots the participants cycle over")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--embedded", action="store_true", help="SQLite and the filesystem broker instead")
    parser.add_argument("--timeout", type=float, default=1800, help="give up on a run after this many seconds")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)  # internal: one run in a child process
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    parser.add_argument("--run-database-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.embedded:
        args.broker_url = ""

    if args.run is not None:
        print(json.dumps(run_once(args, args.run, Path(args.data_dir), args.run_database_url)))
        return

    counts = [int(n) for n in args.workers.split(",")]
    pairings = args.bots * (args.bots - 1)
    setup = "SQLite + filesystem broker" if args.embedded else f"PostgreSQL + {urlsplit(args.broker_url).scheme}"
    print(
        f"double round robin: {args.bots} bots ({args.house}), {pairings} matches x {args.games} games "
        f"= {pairings * args.games} games; {setup}"
    )
    results = []
    for workers in counts:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as data_dir:
            if args.embedded:
                url = f"sqlite:///{data_dir}/bench.sqlite3"
            else:
                url = fresh_postgres(args.database_url, f"arena_bench_{os.getpid()}_{workers}")
            try:
                child = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        *sys.argv[1:],
                        "--run",
                        str(workers),
                        "--data-dir",
                        data_dir,
                        "--run-database-url",
                        url,
                    ],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                )
            finally:
                if not args.embedded:
                    drop_postgres(url)
        if child.returncode != 0:
            raise SystemExit(f"run with {workers} worker(s) failed:\n{child.stdout[-2000:]}{child.stderr[-3000:]}")
        result = json.loads(child.stdout.strip().splitlines()[-1])
        results.append(result)
        print(
            f"{workers} worker process(es): {result['games']} games in {result['seconds']:.1f} s "
            f"= {result['games_per_second']:.1f} games/s, worker CPU {result['worker_cpu_seconds']:.1f} s "
            f"({result['failed_matches']} failed matches)",
            flush=True,
        )
    if len(results) >= 2:
        base = results[0]
        for result in results[1:]:
            speedup = base["seconds"] / result["seconds"]
            print(f"speed-up {result['workers']} vs {base['workers']} worker(s): {speedup:.2f}x")


if __name__ == "__main__":
    main()
