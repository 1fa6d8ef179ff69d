"""Each sandbox weighs as one ordinary process on a shared CPU, however many threads it runs (bots/sandbox/cgroups.py,
where the host offers the cpu controller to a root runner)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from bots.sandbox import SandboxedPlayer, cgroups

BUSY_SECONDS = 1.0
# Hashing a large block lets go of the interpreter's lock, so each thread of it takes a CPU of its own
SPIN = """
import hashlib, threading, time
BLOCK = bytes(4 << 20)
def busy(seconds):
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        hashlib.sha256(BLOCK).digest()
def play(observation):
    threads = [threading.Thread(target=busy, args=(observation["seconds"],)) for _ in range(observation["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"plays": []}
"""


def process_cpu(pid: int) -> float:
    return time.clock_gettime((~pid << 3) | 2)


def _weighted(player: SandboxedPlayer) -> cgroups.Cgroup:
    cgroup = player._sandbox.cgroup
    if cgroup is None or not cgroup.cpu_weighted:
        pytest.skip("this runner gets no cgroup with the cpu controller here (not root, or no such controller)")
    return cgroup


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner creates cgroups")
def test_each_sandbox_gets_the_weight_of_one_process(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(SPIN)
    with SandboxedPlayer(bot) as player:
        player.start(5)
        cgroup = _weighted(player)
        setting, value = (
            ("cpu.weight", cgroups.CPU_WEIGHT) if cgroup.version == 2 else ("cpu.shares", cgroups.CPU_SHARES)
        )
        weighted = [directory for directory in cgroup.directories if (directory / setting).exists()]
        assert [(directory / setting).read_text().strip() for directory in weighted] == [str(value)]
        procs = (weighted[0] / "cgroup.procs").read_text().split()
        assert str(player.sandbox_pid) in procs
        # and their folder, which competes with the machine's other processes, one process's weight a CPU
        all_sandboxes = (weighted[0].parent / setting).read_text().strip()
        assert all_sandboxes == str(
            min(value * os.cpu_count(), cgroups.MAX_CPU_WEIGHT if cgroup.version == 2 else 1 << 18)
        )


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner creates cgroups")
def test_a_bot_with_many_threads_takes_no_more_of_a_shared_cpu_than_one_with_one(sandbox_works, tmp_path):
    """Two bots in their turns at once (two matches on one CPU): eight spinning threads against one get about half."""
    bot = tmp_path / "bot.py"
    bot.write_text(SPIN)
    everything = os.sched_getaffinity(0)
    cpu = {max(everything)}
    players = [SandboxedPlayer(bot), SandboxedPlayer(bot)]
    try:
        for player in players:
            player.start(5)
            _weighted(player)
        for player in players:
            for task in os.listdir(f"/proc/{player.sandbox_pid}/task"):
                os.sched_setaffinity(int(task), cpu)  # new threads inherit it
        many, one = players
        turns = [
            threading.Thread(target=many.play, args=({"threads": 8, "seconds": BUSY_SECONDS}, 10)),
            threading.Thread(target=one.play, args=({"threads": 1, "seconds": BUSY_SECONDS}, 10)),
        ]
        for turn in turns:
            turn.start()
        time.sleep(BUSY_SECONDS / 4)  # both at work by now, and for a while yet: what each gets meanwhile
        before = [process_cpu(player.sandbox_pid) for player in players]
        time.sleep(BUSY_SECONDS / 2)
        used = [process_cpu(player.sandbox_pid) - start for player, start in zip(players, before, strict=True)]
        for turn in turns:
            turn.join()
    finally:
        for player in players:
            player.close()
    share = used[1] / sum(used)
    # about half with one weight a sandbox; 1/9 if each thread weighed on its own (the machine's other load on that
    # CPU takes its part from both alike)
    assert share > 0.25, f"the one-thread bot got {share:.2f} of the CPU beside eight threads ({used})"
