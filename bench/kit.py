"""Benchmark: the author's kit, from download to a first local game (issue 26).

    python3 -m bench.kit                 # 3 rounds with pip's cache off (a new author), 3 with it on
    python3 -m bench.kit --rounds 5 --python /usr/bin/python3.12

Each round is what an author does on a machine with Python and nothing else of ours: download the wheel over
HTTP (here served by a local HTTP server from the wheel bots.kit builds: the same bytes the site offers), make a
virtual environment, `pip install` the wheel (its two requirements come from the package index, downloaded
afresh with --no-cache-dir in the cold rounds), write a starter bot with `python -m bots new`, and play it
against house:greedy for one game, sandboxed when bwrap is there. The clock covers all of it, each step timed on
its own, wall time. Goals: download to first game <= 60 s (judged on the slowest cold round); wheel <= 1 MB.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench import harness
from bots import kit

FIRST_GAME_GOAL_S = 60.0
WHEEL_GOAL_BYTES = 1_000_000
STEPS = ("download", "venv", "install", "starter", "first game")


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def one_round(url: str, wheel_name: str, python: str, cold: bool) -> dict[str, float]:
    """Seconds per step for one author, in a folder of their own."""
    place = Path(tempfile.mkdtemp(prefix="kit-bench-"))
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv_python = place / "env" / "bin" / "python"
    no_cache = ["--no-cache-dir"] if cold else []
    commands = {
        "venv": [python, "-m", "venv", str(place / "env")],
        "install": [venv_python, "-m", "pip", "install", "-q", *no_cache, str(place / wheel_name)],
        "starter": [venv_python, "-m", "bots", "new", "my_bot.py", "--game", "face-to-face"],
        "first game": [venv_python, "-m", "bots", "play", "my_bot.py", "house:greedy", "--game", "face-to-face",
                       "--games", "1"],
    }  # fmt: skip
    seconds: dict[str, float] = {}
    try:
        started = time.perf_counter()
        (place / wheel_name).write_bytes(urllib.request.urlopen(f"{url}/{wheel_name}").read())
        seconds["download"] = time.perf_counter() - started
        for step, command in commands.items():
            started = time.perf_counter()
            done = subprocess.run(command, cwd=place, env=env, capture_output=True, text=True)
            seconds[step] = time.perf_counter() - started
            if done.returncode != 0:
                raise RuntimeError(f"{step} failed ({done.returncode}): {done.stderr[-2000:]}")
    finally:
        shutil.rmtree(place, ignore_errors=True)
    seconds["total"] = sum(seconds.values())
    return seconds


def spread(values: list[float]) -> str:
    return f"{min(values):6.2f} {statistics.median(values):6.2f} {max(values):6.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per cache state (default 3)")
    parser.add_argument("--python", default="/usr/bin/python3", help="the author's Python (default /usr/bin/python3)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="kit-wheel-"))
    wheel = kit.build(folder)
    size = wheel.stat().st_size
    server, url = serve(folder)
    print(f"load average before: {harness.loadavg()}  ({os.cpu_count()} CPUs)")
    print(f"wheel {wheel.name}: {size:,} bytes")
    print(f"python {args.python}; bwrap {'yes (sandboxed game)' if shutil.which('bwrap') else 'no (in-process game)'}")
    results: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    try:
        for state in results:
            for _ in range(args.rounds):
                results[state].append(one_round(url, wheel.name, args.python, cold=state == "cold"))
    finally:
        server.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\nseconds per step, min median max over {args.rounds} rounds (wall clock)")
    print(f"{'step':<12} {'cold pip cache':>20}   {'warm pip cache':>20}")
    for step in (*STEPS, "total"):
        cold, warm = (spread([one[step] for one in results[state]]) for state in ("cold", "warm"))
        print(f"{step:<12} {cold:>20}   {warm:>20}")
    print(f"load average after: {harness.loadavg()}")
    slowest = max(r["total"] for r in results["cold"])
    print("\ngoals")
    print(f"  download to first local game (slowest cold round) {slowest:.1f} s <= {FIRST_GAME_GOAL_S:.0f} s: "
          f"{harness.verdict(slowest <= FIRST_GAME_GOAL_S)}")  # fmt: skip
    print(f"  kit wheel {size / 1e6:.3f} MB <= 1 MB: {harness.verdict(size <= WHEEL_GOAL_BYTES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
