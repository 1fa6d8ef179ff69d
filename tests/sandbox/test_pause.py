"""A sandboxed bot gets no CPU outside its turns: threads and signal handlers are stopped with it (pause.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sandbox_helpers import pid_namespace, processes_in

from bots.sandbox import SandboxedPlayer

GAP_SECONDS = 0.5  # the opponent's turn, as it were
# What a stopped sandbox may still be charged over a gap: the tail of the turn before the SIGSTOP lands.
OUTSIDE_CPU_CAP = 0.03

SPINNING_THREAD = """
import threading
spins = 0
def spin():
    global spins
    while True:
        spins += 1
threading.Thread(target=spin, daemon=True).start()
def play(observation):
    return {"plays": [], "spins": spins}
"""

# One thread only: the interval timer's handler runs in the main thread while it waits for the next request.
SPINNING_SIGNAL_HANDLER = """
import signal, time
ticks = 0
def busy(signum, frame):
    global ticks
    ticks += 1
    until = time.perf_counter() + 0.008
    while time.perf_counter() < until:
        pass
signal.signal(signal.SIGALRM, busy)
signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)
def play(observation):
    return {"plays": [], "ticks": ticks}
"""

# A thread born between turns, from a signal handler, after the runner last looked.
THREAD_FROM_A_HANDLER = """
import signal, threading
started = []
def spin():
    while True:
        pass
def late(signum, frame):
    if not started:
        started.append(threading.Thread(target=spin, daemon=True))
        started[0].start()
signal.signal(signal.SIGALRM, late)
def play(observation):
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    return {"plays": []}
"""


def sandbox_cpu_seconds(pid: int) -> float:
    """CPU time of every thread of the sandbox so far (schedstat: nanoseconds on the CPU, per task)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError):
            pass  # a thread that just ended
    return total / 1e9


def process_state(pid: int, expected: str = "T", wait: float = 1.0) -> str:
    """The process's state letter, once it is `expected` or after `wait` seconds (a signal lands asynchronously)."""
    deadline = time.monotonic() + wait
    while True:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == expected or time.monotonic() > deadline:
            return state
        time.sleep(0.002)


@pytest.mark.parametrize(
    "source",
    [SPINNING_THREAD, SPINNING_SIGNAL_HANDLER, THREAD_FROM_A_HANDLER],
    ids=["thread", "signal-handler", "thread-from-handler"],
)
def test_a_bot_uses_no_cpu_between_its_turns(sandbox_works, tmp_path, source):
    bot = tmp_path / "bot.py"
    bot.write_text(source)
    with SandboxedPlayer(bot) as player:
        player.start(5)
        pid = player.sandbox_pid
        outside = 0.0
        for _ in range(3):
            player.play({}, 2)
            before = sandbox_cpu_seconds(pid)
            time.sleep(GAP_SECONDS)
            outside += sandbox_cpu_seconds(pid) - before
            assert process_state(pid, wait=0) == "T"  # stopped, every thread of it
        assert outside < OUTSIDE_CPU_CAP, f"{outside:.3f} s of CPU outside its turns"


def test_a_stopped_bot_still_runs_its_background_work_during_its_turns(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(SPINNING_THREAD + "\nimport time\ndef play(observation):\n    time.sleep(0.05)\n    return spins\n")
    with SandboxedPlayer(bot) as player:
        player.start(5)
        first, _ = player.play({}, 2)
        second, _ = player.play({}, 2)
        assert second > first  # the spinner was let run again with its turn


def test_a_single_threaded_bot_is_stopped_too_and_its_clock_is_its_own(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return {'plays': []}\n")
    with SandboxedPlayer(bot) as player:
        player.start(5)
        player.play({}, 2)
        assert process_state(player.sandbox_pid) == "T"
        time.sleep(0.2)
        _, elapsed = player.play({}, 2)  # the wake-up is the runner's, not a slow turn
        assert elapsed < 0.1


def test_a_stopped_sandbox_is_killed_and_reaped_at_once(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(SPINNING_SIGNAL_HANDLER)
    player = SandboxedPlayer(bot)
    player.start(5)
    player.play({}, 2)
    namespace = pid_namespace(player.sandbox_pid)
    assert process_state(player.sandbox_pid) == "T"
    closing = time.perf_counter()
    player.close()
    assert time.perf_counter() - closing < 1.0  # nothing waited on the stopped process
    assert processes_in(namespace) == []
