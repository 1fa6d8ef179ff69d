"""Stopping sandboxes between their turns (bots/sandbox/pause.py): what a turn costs, and what it buys an opponent.

    python -m bench.sandbox_pause                 # both
    python -m bench.sandbox_pause --only cost     # per-turn cost of a turn (request, reply, stop), instant bot
    python -m bench.sandbox_pause --only share    # an opponent's CPU share on a core shared with a hostile bot

cost: an instant bot answers --turns requests, stopping itself after each (the harness does, harness.py); per
turn: the runner's wall time (request and continue, reply, the stop seen), the turn time the bot is charged, and
the runner's and the sandbox's CPU. Also the continue signal alone, sent to a stopped sandbox.

share: everything (runner and both sandboxes) pinned to one CPU, as on a worker with more matches than cores.
The opponent busy-waits 20 ms of wall time per turn and reports the CPU time it got: its share of the wall
time (other sessions on the machine take their part too), and of what the two sandboxes got during its
turns (other load drops out: 1.00 means the rival got nothing while it was not its turn). It plays against
an idle bot, a bot whose background thread spins, and a bot whose SIGALRM handler spins.
The machine's load is printed: it moves the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import tempfile
import time
from pathlib import Path

from bots.sandbox import SandboxedPlayer

INSTANT = "TURN = {'plays': []}\ndef play(observation):\n    return TURN\n"
IDLE = INSTANT
OPPONENT = """
import time
def play(observation):
    cpu, until = time.thread_time(), time.perf_counter() + observation["busy"]
    while time.perf_counter() < until:
        pass
    return {"plays": [], "cpu": time.thread_time() - cpu}
"""
THREAD = """
import threading
def spin():
    while True:
        pass
threading.Thread(target=spin, daemon=True).start()
def play(observation):
    return {"plays": []}
"""
SIGNAL = """
import signal, time
def busy(signum, frame):
    until = time.perf_counter() + 0.009
    while time.perf_counter() < until:
        pass
signal.signal(signal.SIGALRM, busy)
signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
def play(observation):
    return {"plays": []}
"""
HOSTILE = {"idle": IDLE, "thread": THREAD, "signal-handler": SIGNAL}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _sandbox_cpu(pid: int) -> float:
    return sum(int((task / "schedstat").read_text().split()[0]) for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9


def bench_cost(bot: Path, turns: int) -> dict[str, dict[str, float]]:
    figures = {}
    for label in ("turn",):
        with SandboxedPlayer(bot) as player:
            player.start(10)
            player.play({}, 5)
            walls, charged = [], []
            runner, sandbox = _cpu(resource.RUSAGE_SELF), _sandbox_cpu(player.sandbox_pid)
            for _ in range(turns):
                started = time.perf_counter()
                _, elapsed = player.play({}, 5)
                walls.append(time.perf_counter() - started)
                charged.append(elapsed)
            figures[label] = {
                "wall_us": statistics.median(walls) * 1e6,
                "charged_us": statistics.median(charged) * 1e6,
                "runner_cpu_us": (_cpu(resource.RUSAGE_SELF) - runner) / turns * 1e6,
                "sandbox_cpu_us": (_sandbox_cpu(player.sandbox_pid) - sandbox) / turns * 1e6,
            }
    with SandboxedPlayer(bot) as player:  # SIGCONT alone, to a sandbox stopped after its reply
        player.start(10)
        pidfd = os.pidfd_open(player.sandbox_pid)
        started = time.perf_counter()
        for _ in range(turns):
            signal.pidfd_send_signal(pidfd, signal.SIGCONT)
        figures["continue alone"] = {"wall_us": (time.perf_counter() - started) / turns * 1e6}
        os.close(pidfd)
    return figures


def bench_share(opponent: Path, hostile: Path, turns: int, busy: float) -> dict[str, float]:
    """Everything on one CPU: the opponent's CPU over its turns' wall time ("of the wall"), and its part of
    what the match's two sandboxes got during its turns ("of the match": the other machine load drops out)."""
    with SandboxedPlayer(hostile) as rival, SandboxedPlayer(opponent) as player:
        rival.start(10)
        player.start(10)
        cpu = wall = rival_cpu = 0.0
        for _ in range(turns):
            rival.play({}, 5)
            before = _sandbox_cpu(rival.sandbox_pid)
            reply, elapsed = player.play({"busy": busy}, 5)
            rival_cpu += _sandbox_cpu(rival.sandbox_pid) - before
            cpu += reply["cpu"]
            wall += elapsed
    return {"of_wall": cpu / wall, "of_match": cpu / (cpu + rival_cpu), "rival_cpu_ms": rival_cpu / turns * 1e3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["cost", "share"])
    parser.add_argument("--turns", type=int, default=5000, help="cost: turns per run")
    parser.add_argument("--share-turns", type=int, default=100, help="share: opponent turns per run")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as scratch:
        files = {}
        for name, source in {"instant": INSTANT, "opponent": OPPONENT, **HOSTILE}.items():
            files[name] = Path(scratch) / f"{name}.py"
            files[name].write_text(source)
        SandboxedPlayer(files["instant"]).start(10)  # warm-up: seccomp program, harness, staging
        if args.only in (None, "cost"):
            print("cost clock: per turn, the runner's wall time of play() (request and continue, reply, the stop seen)")
            for label, row in bench_cost(files["instant"], args.turns).items():
                print(f"{label:>13}: " + ", ".join(f"{key} {value:.1f}" for key, value in row.items()))
            print(f"   (medians over {args.turns} turns; load average now {os.getloadavg()[0]:.2f})")
        if args.only in (None, "share"):
            everything = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {max(everything)})  # the sandboxes inherit it
            print(
                "share clock: the CPU the opponent's sandbox reports per turn, over the turn's wall time and over it "
                "plus the rival sandbox's CPU during that turn (from the host's /proc)"
            )
            try:
                for name in HOSTILE:
                    row = bench_share(files["opponent"], files[name], args.share_turns, 0.02)
                    print(f"beside a bot {name:>14}: opponent's CPU "
                          f"{row['of_match']:.2f} of the match's, {row['of_wall']:.2f} of the wall; "
                          f"rival's CPU in the opponent's turn {row['rival_cpu_ms']:.2f} ms "
                          f"(load average {os.getloadavg()[0]:.2f})")  # fmt: skip
            finally:
                os.sched_setaffinity(0, everything)


if __name__ == "__main__":
    main()
