"""Soak: many sandboxed games through Celery, watching the worker for leaks of files, processes and memory.

    python -m bench.soak                                  # 10,000 games, 2 worker processes, PostgreSQL + Redis
    python -m bench.soak --games 300 --match-games 10     # a short run

The league is set up as bench/tournament_throughput.py --sandboxed does (a fresh PostgreSQL database, uploaded copies of
house bots validated like any upload, one Celery worker on a queue of its own, DEBUG off), then `--games` games are
queued as unrated exhibition matches of `--match-games` games each, cycling over the pairs of bots, so that
sandboxes are started and stopped at every match. Every `--every` seconds the worker is sampled: open file
descriptors and RSS of the worker's own processes (the Celery parent and its pool), and the number of its
descendants (sandboxes included). Before the games and once they are all stored, with the worker idle, the
same figures are taken again.

It prints the first, last and max of each figure and whether it stayed within `--tolerance` (10%): open
files compare the idle worker after the games with the idle worker before them (a busy pool holds its
sandboxes' pipes); RSS compares the idle worker after the games with the first sample after the warm-up (the
first tenth of the games: caches fill then); the count of processes compares the idle worker after the games
with the idle worker before them, where a leaked sandbox would show, and the busy maximum with what the pool
can run at once.
The last line is JSON, for tests.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import secrets
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import harness

# Each sandbox is bwrap and the bot's harness, and bwrap may keep a parent of the namespace beside them.
PROCESSES_PER_SANDBOX = 4  # bwrap, its child held before its exec, the fork server's monitor and the harness


@dataclass
class Sample:
    seconds: float
    games: int
    fds: int
    rss_mib: float
    processes: int
    load: float


def process_tree(root: int) -> dict[int, int]:
    """Every descendant of `root` (root included) mapped to its depth below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    depths, todo = {root: 0}, [root]
    while todo:
        current = todo.pop()
        for child in children.get(current, []):
            depths[child] = depths[current] + 1
            todo.append(child)
    return depths


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def sample(worker_pid: int, games: int, started: float) -> Sample:
    """The worker's own processes (the Celery parent and its pool: depth 0 and 1) for files and memory;
    everything below it for the process count."""
    tree = process_tree(worker_pid)
    own = [pid for pid, depth in tree.items() if depth <= 1]
    return Sample(
        seconds=round(time.monotonic() - started, 1),
        games=games,
        fds=sum(open_fds(pid) for pid in own),
        rss_mib=round(sum(rss_kib(pid) for pid in own) / 1024, 1),
        processes=len(tree) - 1,
        load=round(os.getloadavg()[0], 2),
    )


def queue_matches(bots: list, total_games: int, match_games: int) -> int:
    """Unrated exhibition matches of `match_games` games (the last one shorter) cycling over the pairs of bots."""
    from league.arena import queue
    from league.arena.models import Match

    versions = [bot.versions.get() for bot in bots]
    pairs = itertools.cycle(itertools.permutations(versions, 2))
    planned = []
    for number, first in enumerate(range(0, total_games, match_games)):
        games = min(match_games, total_games - first)
        match = Match(kind=Match.Kind.EXHIBITION, game="face-to-face", games=games, seed=f"soak-{number}", rated=False)
        planned.append((match, list(next(pairs))))
    matches = Match.objects.bulk_create_with_entries(planned)
    for match in matches:
        queue.play(match.pk, match.kind)
    return len(matches)


def growth(first: float, last: float) -> float:
    return (last - first) / first if first else 0.0


def judge(samples: list[Sample], idle_before: Sample, idle_after: Sample, args: argparse.Namespace) -> dict:
    """First/last/max of each figure and whether it stayed within the tolerance (see the module's notes)."""
    warm = [s for s in samples if s.games >= args.games // 10] or samples
    report: dict = {}
    # Open files are compared idle with idle (a busy pool holds its sandboxes' pipes); memory after the warm-up.
    for name, first_sample in (("fds", idle_before), ("rss_mib", warm[0])):
        first, last = getattr(first_sample, name), getattr(idle_after, name)
        report[name] = {
            "first": first,
            "last": last,
            "max": max(getattr(s, name) for s in samples),
            "growth": round(growth(first, last), 4),
            "ok": growth(first, last) <= args.tolerance,
        }
    # two sandboxes per pool process at most, beside the pool process and its fork server
    busy_cap = args.workers * (2 * PROCESSES_PER_SANDBOX + 2)
    report["processes"] = {
        "first": idle_before.processes,
        "last": idle_after.processes,
        "max": max(s.processes for s in samples),
        "busy_cap": busy_cap,
        "ok": idle_after.processes == idle_before.processes and max(s.processes for s in samples) <= busy_cap,
    }
    report["ok"] = all(figure["ok"] for figure in report.values())
    return report


def soak(args: argparse.Namespace, data_dir: Path, database_url: str) -> dict:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database_url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_QUEUE=f"soak-{os.getpid()}",
        ARENA_LADDER_MAX_PENDING="0",
        ARENA_SANDBOX="1",
        CELERY_BROKER_URL=args.broker_url,
        LOG_LEVEL="WARNING",
        # As in production: with DEBUG on, Django keeps each process's last 9,000 queries (its query log),
        # which reads as some 10 MiB of growth per pool process before it levels off.
        DEBUG="false",
        SECRET_KEY=secrets.token_hex(32),
    )
    import django

    django.setup()
    from django.core.management import call_command

    from league.arena.models import FORFEITS, Game, Match

    call_command("migrate", interactive=False, verbosity=0)
    bots = harness.uploaded_participants(args.house.split(","), args.bots)
    log_path = data_dir / "worker.log"
    worker = harness.start_worker(args.workers, log_path)
    try:
        harness.await_validation(bots, worker, log_path, args.timeout)
        started = time.monotonic()
        idle_before = sample(worker.pid, 0, started)
        matches = queue_matches(bots, args.games, args.match_games)
        print(f"queued {matches} matches of {args.match_games} games; idle worker: {idle_before}", flush=True)
        samples: list[Sample] = []
        exhibitions = Match.objects.filter(kind=Match.Kind.EXHIBITION)
        next_print = 0.0
        while True:
            done = exhibitions.filter(status__in=[Match.Status.DONE, Match.Status.FAILED]).count()
            games = Game.objects.filter(match__kind=Match.Kind.EXHIBITION).count()
            samples.append(sample(worker.pid, games, started))
            if time.monotonic() >= next_print:
                print(f"  {samples[-1]}", flush=True)
                next_print = time.monotonic() + args.print_every
            if done == matches:
                break
            if worker.poll() is not None:
                raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
            if time.monotonic() - started > args.timeout:
                raise SystemExit(f"not finished after {args.timeout} s: {done} of {matches} matches")
            time.sleep(args.every)
        elapsed = time.monotonic() - started
        time.sleep(2)  # the last match's sandboxes are reaped as it is stored; give the pool a moment
        idle_after = sample(worker.pid, games, started)
        cpu = harness.tree_cpu_seconds(worker.pid)
    finally:
        harness.stop_worker(worker)
    failed = exhibitions.filter(status=Match.Status.FAILED).count()
    forfeits = Game.objects.filter(match__kind=Match.Kind.EXHIBITION, termination__in=FORFEITS).count()
    report = judge(samples, idle_before, idle_after, args)
    report["ok"] = report["ok"] and failed == 0 and forfeits == 0
    return {
        "games": games,
        "matches": matches,
        "failed_matches": failed,
        "forfeits": forfeits,
        "seconds": round(elapsed, 1),
        "games_per_second": round(games / elapsed, 2),
        "worker_cpu_seconds": round(cpu, 1),
        "load_mean": round(statistics.fmean(s.load for s in samples), 2),
        "load_max": max(s.load for s in samples),
        "samples": len(samples),
        "idle_before": asdict(idle_before),
        "idle_after": asdict(idle_after),
        **report,
    }


def describe(result: dict) -> str:
    lines = [
        f"{result['games']} games in {result['matches']} matches, {result['seconds']} s = "
        f"{result['games_per_second']} games/s; worker CPU {result['worker_cpu_seconds']} s; load mean "
        f"{result['load_mean']}, max {result['load_max']} on {os.cpu_count()} CPUs; {result['failed_matches']} "
        f"failed matches, {result['forfeits']} forfeited games; "
        f"{result['samples']} samples"
    ]
    labels = {"fds": "open files (worker + pool), idle before", "rss_mib": "RSS MiB (worker + pool), after warm-up"}
    for name, label in labels.items():
        figure = result[name]
        lines.append(
            f"  {label}: {figure['first']}, last (idle) {figure['last']}, max {figure['max']}, "
            f"growth {100 * figure['growth']:+.1f}% -> {'within' if figure['ok'] else 'BEYOND'} the tolerance"
        )
    figure = result["processes"]
    lines.append(
        f"  processes below the worker: idle before {figure['first']}, idle after {figure['last']}, busy max "
        f"{figure['max']} (cap {figure['busy_cap']}) -> {'no leak' if figure['ok'] else 'LEAK'}"
    )
    lines.append("PASS" if result["ok"] else "FAIL")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games in all (default 10000)")
    parser.add_argument("--match-games", type=int, default=20, help="games per match (default 20)")
    parser.add_argument("--bots", type=int, default=4, help="uploaded bots (default 4)")
    parser.add_argument("--house", default="random,greedy", help="house bots the uploads copy")
    parser.add_argument("--workers", type=int, default=2, help="worker pool processes (default 2)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between samples (default 1)")
    parser.add_argument("--print-every", type=float, default=60.0, help="seconds between printed samples")
    parser.add_argument("--tolerance", type=float, default=0.10, help="allowed growth (default 0.10)")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--timeout", type=float, default=6 * 3600, help="give up after this many seconds")
    args = parser.parse_args()
    print(
        f"soak: {args.games} sandboxed games, {args.match_games} per match, {args.bots} bots ({args.house}), "
        f"{args.workers} worker process(es); load {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="arena-soak-") as data_dir:
        url = harness.fresh_postgres(args.database_url, f"arena_soak_{os.getpid()}")
        try:
            result = soak(args, Path(data_dir), url)
        finally:
            from django.db import connections

            connections.close_all()
            harness.drop_postgres(url)
    print(describe(result))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
