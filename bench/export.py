"""Benchmark: games as data, the export of public games into monthly archives (issue 26).

    python3 -m bench.scale --bots 1000 --games 1000000 --skip-pages --skip-catchup   # fill arena_scale once
    python3 -m bench.export                                   # export every public game of arena_scale
    python3 -m bench.export --database arena_scale_kits --rounds 2

The database is one bench.scale filled (genuine logs, validation matches beside the public ones); this bench only
reads it. Each round runs league.arena.play.archives.export() in a fresh process into an empty folder, with a clock
at which every month up to --through is finished (default: all of them), so each of their public games is read,
verified and written: by its seal (the fill seals its genuine logs as the store path does, with the SECRET_KEY
bench.scale gives that database), or by replaying it through the engine when no seal holds (a database filled
before seals: refill it); the count replayed is printed. The clock covers the whole export (queries, seals,
replays, compression, renames), wall time; peak memory is the exporting process's maximum resident set. Goals: 1M
games in <= 10 minutes (judged on the games-per-second rate scaled to 1M when the database holds fewer) and peak
memory <= 300 MB; the archive's bytes per game are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import harness
from bench.scale import secret_key

MILLION = 1_000_000
TIME_GOAL_S = 600.0
MEMORY_GOAL_MB = 300.0

ONE_ROUND = """
import json, resource, sys, time
from datetime import datetime, UTC
import django
django.setup()
from league.arena.play import archives
from league.arena.models import Game
began = time.perf_counter()
result = archives.export(datetime.fromisoformat(sys.argv[1]), jobs=int(sys.argv[2]))
seconds = time.perf_counter() - began
print(json.dumps({
    "seconds": seconds,
    "games": result.games,
    "skipped": result.skipped,
    "replayed": result.replayed,
    "archives": len(result.archives),
    "bytes": sum(archive.bytes for archive in result.archives),
    "stored": Game.objects.count(),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "children_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}))
"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", default="arena_scale", help="a database bench.scale filled")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432", help="server URL, no database")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes replaying the logs")
    parser.add_argument(
        "--through", default="2099-12", help="export the months up to this one (YYYY-MM; default: every month)"
    )
    return parser.parse_args(argv)


def one_round(args: argparse.Namespace, folder: Path) -> dict:
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=f"{args.postgres}/{args.database}",
        SECRET_KEY=secret_key(args.database),  # the key the fill sealed its games with
        ARENA_DATA_DIR=str(folder / "var"),
        ARENA_ARCHIVE_DIR=str(folder / "archives"),
        LOG_LEVEL="WARNING",
    )
    done = subprocess.run(
        [sys.executable, "-c", ONE_ROUND, clock(args.through), str(args.jobs)],
        cwd=harness.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the export failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def clock(through: str) -> str:
    """A moment at which every month up to `through` is finished and the next is not."""
    month = datetime.strptime(through, "%Y-%m").replace(tzinfo=UTC)
    after = (month.replace(day=28) + timedelta(days=4)).replace(day=1)
    return (after + timedelta(days=1)).isoformat()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(
        "clock: the whole export in a fresh process (keyset pages of games, seats, each log's seal checked or the log "
        "replayed by the engine, gzip, renames), wall time; memory: that process's peak resident set"
    )
    rounds = []
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory(prefix="bench-export-") as scratch:
            figures = one_round(args, Path(scratch))
        rate = figures["games"] / figures["seconds"] if figures["seconds"] else 0.0
        per_game = figures["bytes"] / figures["games"] if figures["games"] else 0.0
        rounds.append({**figures, "rate": rate, "per_game": per_game})
        print(
            f"round {number}: {figures['games']:,} public games of {figures['stored']:,} stored into "
            f"{figures['archives']} archives in {figures['seconds']:.1f} s ({rate:,.0f} games/s), "
            f"{figures['bytes'] / 1e6:.1f} MB ({per_game:.0f} bytes a game), peak RSS {figures['peak_rss_mb']:.0f} MB "
            f"(largest replaying process {figures['children_peak_rss_mb']:.0f} MB, {args.jobs} of them), "
            f"{figures['replayed']:,} replayed (no holding seal), {figures['skipped']} left out "
            f"(load {harness.loadavg()})",
            flush=True,
        )
    worst = min(rounds, key=lambda r: r["rate"])
    if not worst["games"]:
        print(f"{args.database} holds no public game: fill it with python3 -m bench.scale first")
        return 1
    million_s = MILLION / worst["rate"]
    peak = max(r["peak_rss_mb"] for r in rounds)
    measured = "" if worst["games"] >= MILLION else f" (scaled from {worst['games']:,} games)"
    print("goals:")
    print(
        f"  {harness.verdict(million_s <= TIME_GOAL_S)}  1M games <= {TIME_GOAL_S:.0f} s{measured}: {million_s:.0f} s"
    )
    print(f"  {harness.verdict(peak <= MEMORY_GOAL_MB)}  peak memory <= {MEMORY_GOAL_MB:.0f} MB: {peak:.0f} MB")
    print(
        f"  archive size: {worst['per_game']:.0f} bytes a game, {worst['per_game'] * MILLION / 1e9:.2f} GB per 1M games"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
