"""Soak: many sandboxed games through Celery, watching the worker for leaks of files, processes and memory.

    python -m bench.soak                                  # 10,000 games, 2 worker processes, PostgreSQL + Redis
    python -m bench.soak --games 300 --match-games 10     # a short run

The league is set up as `python -m bench.tournament_throughput --sandboxed` does (a fresh PostgreSQL database,
uploaded copies of house bots validated like any upload, one Celery worker on a queue of its own, DEBUG off). A
warm-up of a tenth of the games comes first, then the rest: unrated exhibition matches of `--match-games` games
each, cycling over the pairs of bots, so that sandboxes are started and stopped at every match. Every `--every`
seconds the worker is sampled: open file descriptors and RSS of its long-lived processes (the Celery parent, its
pool, and each pool process's fork server), and the processes below it (sandboxes included). With the worker
idle (its last match stored and no bot running) the same figures are taken before the games, after the warm-up
and at the end.

It prints the first, last and max of each figure and judges each goal: open files and RSS at the end may exceed
the idle worker's after the warm-up (caches full, every fork server started) by `--tolerance` (10%) at most; no
bot may be left running once the worker is idle (a pool process keeps up to bots.sandbox.pool.CAPACITY emptied
sandboxes, bwrap and its held child, for its uploads' next matches), nor more than one fork server per pool process,
and the busy maximum stays within what the pool can run at once; once the idle worker has waited past the kept
sandboxes' time (pool.IDLE_SECONDS), no sandbox process is left at all; every match is stored and no game forfeited.
The last line is JSON, for tests.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import harness
from bots.sandbox import pool

CLOCK = (
    "clock: from the first warm-up match queued (the uploads validated, the worker idle) to the last match stored; "
    "the worker sampled every --every seconds, and idle (no bot running) before, after the warm-up and at the end"
)
# Each sandbox is bwrap and the bot's harness, and bwrap may keep a parent of the namespace beside them.
PROCESSES_PER_SANDBOX = 3  # bwrap, its child held before its exec, and the harness
KEPT_PROCESSES = 2  # of a sandbox kept for its upload's next match: bwrap and its child, no harness (pool.py)
SETTLE_SECONDS = 1.0  # past the kept sandboxes' time (pool.IDLE_SECONDS): the timer that ends them has run
KEPT_FDS = (
    4  # its pool process holds for it: pidfds on bwrap and its child, the pipe the child waits on, bwrap's stderr
)


@dataclass
class Sample:
    seconds: float
    games: int
    fds: int  # open by the worker's long-lived processes: the Celery parent, its pool, their fork servers
    rss_mib: float  # their resident memory
    processes: int  # every process below the worker
    fork_servers: int
    sandboxes: int  # processes below the worker that are neither pool processes nor fork servers
    bots: int  # of them, those that are not bwrap's: harnesses (or their monitors), which run the bots
    load: float


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


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def is_fork_server(pid: int) -> bool:
    try:
        return b"zygote.pyc" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def is_launcher(pid: int, servers: list[int]) -> bool:
    """Whether `pid` is a fork server's launcher: its child, forked from it (so it shows the same command line), in
    the worker's PID namespace (a harness, also its child, is in its sandbox's)."""
    try:
        parent = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
        same_namespace = os.readlink(f"/proc/{pid}/ns/pid") == os.readlink("/proc/self/ns/pid")
    except (OSError, ValueError, IndexError):
        return False
    return parent in servers and same_namespace and is_fork_server(pid)


def sample(worker_pid: int, games: int, started: float) -> Sample:
    """Files and memory of the worker's long-lived processes (the Celery parent and its pool, depth 0 and 1, and
    each pool process's fork server, depth 2); the count of everything below the worker, sandboxes apart."""
    tree = harness.process_tree(worker_pid)
    servers = [pid for pid, depth in tree.items() if depth == 2 and is_fork_server(pid)]
    launchers = [pid for pid, depth in tree.items() if depth == 3 and is_launcher(pid, servers)]
    own = [pid for pid, depth in tree.items() if depth <= 1] + servers + launchers
    sandboxes = [pid for pid in tree if pid != worker_pid and pid not in own]
    return Sample(
        seconds=round(time.monotonic() - started, 1),
        games=games,
        fds=sum(open_fds(pid) for pid in own),
        rss_mib=round(sum(rss_kib(pid) for pid in own) / 1024, 1),
        processes=len(tree) - 1,
        fork_servers=len(servers),
        sandboxes=len(sandboxes),
        bots=sum(1 for pid in sandboxes if comm(pid) != "bwrap"),
        load=round(os.getloadavg()[0], 2),
    )


def idle_sample(worker_pid: int, games: int, started: float, timeout: float = 30.0) -> Sample:
    """A sample once the worker is idle: its last match stored and that match's bots ended (or `timeout` seconds
    later, when a bot that outlives its match is what the sample must show)."""
    deadline = time.monotonic() + timeout
    while (taken := sample(worker_pid, games, started)).bots and time.monotonic() < deadline:
        time.sleep(0.05)
    return taken


def queue_matches(bots: list, total_games: int, match_games: int, first_number: int = 0) -> int:
    """Unrated exhibition matches of `match_games` games (the last one shorter) cycling over the pairs of bots,
    numbered (their seeds) from `first_number`."""
    from league.arena import queue
    from league.arena.models import Match

    versions = [bot.versions.get() for bot in bots]
    pairs = itertools.cycle(itertools.permutations(versions, 2))
    planned = []
    for number, first in enumerate(range(0, total_games, match_games), start=first_number):
        games = min(match_games, total_games - first)
        match = Match(kind=Match.Kind.EXHIBITION, game="face-to-face", games=games, seed=f"soak-{number}", rated=False)
        planned.append((match, list(next(pairs))))
    matches = Match.objects.bulk_create_with_entries(planned)
    for match in matches:
        queue.play(match.pk, match.kind)
    return len(matches)


def kept_sandboxes(taken: Sample) -> int:
    """The emptied sandboxes (bwrap and its held child, no harness) an idle sample shows."""
    return (taken.sandboxes - taken.bots) // KEPT_PROCESSES


def growth(first: float, last: float) -> float:
    return (last - first) / first if first else 0.0


def judge(
    idle_before: Sample,
    warm: Sample,
    idle_after: Sample,
    settled: Sample,
    samples: list[Sample],
    workers: int,
    tolerance: float,
):
    """First/last/max of each figure and whether it stayed within the tolerance (see the module's notes); `settled`
    is the idle worker once its kept sandboxes' time is up."""
    report: dict = {}
    # Files and memory: the idle worker after the games against the idle worker after the warm-up (caches full,
    # every fork server started); a busy sample would count its sandboxes' pipes and its matches' data.
    for name in ("fds", "rss_mib"):
        first, last = getattr(warm, name), getattr(idle_after, name)
        # the descriptors held for the sandboxes kept for the next matches (as many as uploads seen) are no leak
        held = [KEPT_FDS * kept_sandboxes(taken) if name == "fds" else 0 for taken in (warm, idle_after)]
        change = growth(first - held[0], last - held[1])
        report[name] = {
            "first": first,
            "last": last,
            "max": max(getattr(s, name) for s in samples),
            "held_for_kept_sandboxes": held,
            "growth": round(change, 4),
            "ok": change <= tolerance,
        }
    # two sandboxes per pool process at most, beside the pool process, its fork server and that one's launcher, and
    # the sandboxes it keeps for its uploads' next matches
    kept_cap = workers * pool.CAPACITY
    busy_cap = workers * (2 * PROCESSES_PER_SANDBOX + 3) + kept_cap * KEPT_PROCESSES
    kept = idle_after.sandboxes - idle_after.bots  # processes
    report["processes"] = {
        "first": idle_before.processes,
        "warm": warm.processes,
        "last": idle_after.processes,
        "max": max(s.processes for s in samples),
        "busy_cap": busy_cap,
        "bots_left": idle_after.bots,
        "kept_sandboxes": kept // KEPT_PROCESSES,
        "kept_cap": kept_cap,
        "fork_servers": idle_after.fork_servers,
        "sandboxes_settled": settled.sandboxes,
        "ok": idle_after.bots == 0
        and settled.sandboxes == 0
        and kept % KEPT_PROCESSES == 0
        and kept // KEPT_PROCESSES <= kept_cap
        and idle_after.fork_servers <= workers
        and max(s.processes for s in samples) <= busy_cap,
    }
    report["ok"] = all(figure["ok"] for figure in report.values())
    return report


def soak(args: argparse.Namespace, data_dir: Path, database_url: str) -> dict:
    harness.sandboxed_league(
        database_url, data_dir, f"soak-{os.getpid()}", args.broker_url, ARENA_LADDER_MAX_PENDING="0"
    )
    from league.arena.models import FORFEITS, Game, Match

    bots = harness.uploaded_participants(args.house.split(","), args.bots)
    log_path = data_dir / "worker.log"
    worker = harness.start_worker(args.workers, log_path)
    exhibitions = Match.objects.filter(kind=Match.Kind.EXHIBITION)
    samples: list[Sample] = []
    next_print = [0.0]

    def play_out(queued: int, started: float) -> int:
        """Sample the worker every --every seconds until `queued` matches are stored; the games stored."""
        while True:
            done = exhibitions.filter(status__in=[Match.Status.DONE, Match.Status.FAILED]).count()
            games = Game.objects.filter(match__kind=Match.Kind.EXHIBITION).count()
            samples.append(sample(worker.pid, games, started))
            if time.monotonic() >= next_print[0]:
                print(f"  {samples[-1]}", flush=True)
                next_print[0] = time.monotonic() + args.print_every
            if done == queued:
                return games
            if worker.poll() is not None:
                raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
            if time.monotonic() - started > args.timeout:
                raise SystemExit(f"not finished after {args.timeout} s: {done} of {queued} matches")
            time.sleep(args.every)

    try:
        harness.await_validation(bots, worker, log_path, args.timeout)
        started = time.monotonic()
        idle_before = idle_sample(worker.pid, 0, started)
        warm_games = min(args.games, max(args.match_games, args.games // 10))
        matches = queue_matches(bots, warm_games, args.match_games)
        print(f"warm-up: {matches} matches, {warm_games} games; idle worker: {idle_before}", flush=True)
        games = play_out(matches, started)
        warm = idle_sample(worker.pid, games, started)
        matches += queue_matches(bots, args.games - warm_games, args.match_games, first_number=matches)
        print(f"queued the rest: {matches} matches in all; idle after the warm-up: {warm}", flush=True)
        games = play_out(matches, started)
        elapsed = time.monotonic() - started
        idle_after = idle_sample(worker.pid, games, started)
        cpu = harness.tree_cpu_seconds(worker.pid)
        time.sleep(pool.IDLE_SECONDS + SETTLE_SECONDS)  # a worker that plays no more keeps no sandbox past its time
        settled = sample(worker.pid, games, started)
    finally:
        harness.stop_worker(worker)
    failed = exhibitions.filter(status=Match.Status.FAILED).count()
    forfeits = Game.objects.filter(match__kind=Match.Kind.EXHIBITION, termination__in=FORFEITS).count()
    report = judge(idle_before, warm, idle_after, settled, samples, args.workers, args.tolerance)
    report["ok"] = report["ok"] and failed == 0 and forfeits == 0
    return {
        "games": games,
        "matches": matches,
        "workers": args.workers,
        "failed_matches": failed,
        "forfeits": forfeits,
        "seconds": round(elapsed, 1),
        "games_per_second": round(games / elapsed, 2),
        "worker_cpu_seconds": round(cpu, 1),
        "load_mean": round(statistics.fmean(s.load for s in samples), 2),
        "load_max": max(s.load for s in samples),
        "samples": len(samples),
        "idle_before": asdict(idle_before),
        "idle_warm": asdict(warm),
        "idle_after": asdict(idle_after),
        **report,
    }


def describe(result: dict, tolerance: float) -> str:
    lines = [
        CLOCK,
        f"{result['games']} games in {result['matches']} matches, {result['seconds']} s = "
        f"{result['games_per_second']} games/s; worker CPU {result['worker_cpu_seconds']} s; load mean "
        f"{result['load_mean']}, max {result['load_max']} on {os.cpu_count()} CPUs; {result['failed_matches']} "
        f"failed matches, {result['forfeits']} forfeited games; {result['samples']} samples",
    ]
    labels = {"fds": "open files", "rss_mib": "RSS MiB"}
    for name, label in labels.items():
        figure = result[name]
        lines.append(
            f"  {harness.verdict(figure['ok'])}  {label} of the worker, its pool and their fork servers grow <= "
            f"{100 * tolerance:g}% (idle after the warm-up {figure['first']}, idle at the end {figure['last']}, "
            f"busy max {figure['max']}; held for kept sandboxes {figure['held_for_kept_sandboxes']}): "
            f"{100 * figure['growth']:+.1f}%"
        )
    figure = result["processes"]
    lines.append(
        f"  {harness.verdict(figure['ok'])}  no bot outlives its match (idle at the end: {figure['bots_left']} bot "
        f"processes, {figure['kept_sandboxes']} emptied sandboxes kept (at most {figure['kept_cap']}), "
        f"{figure['sandboxes_settled']} sandbox processes {pool.IDLE_SECONDS + SETTLE_SECONDS:g} s later; "
        f"{figure['fork_servers']} fork servers for "
        f"{result['workers']} pool processes; busy max {figure['max']} processes below the worker, cap "
        f"{figure['busy_cap']}; idle before {figure['first']}, after the warm-up {figure['warm']}, at the end "
        f"{figure['last']})"
    )
    stored = result["failed_matches"] == 0 and result["forfeits"] == 0
    lines.append(
        f"  {harness.verdict(stored)}  every match stored, no game forfeited: {result['failed_matches']} failed "
        f"matches, {result['forfeits']} forfeits"
    )
    lines.append(harness.verdict(result["ok"]))
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
    print(describe(result, args.tolerance))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
