"""How a runner and its sandboxes are scheduled: a pool process on one CPU with its sandboxes, and SCHED_BATCH
(bots/sandbox/scheduling.py, league/celery.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots.sandbox import SandboxedPlayer, forkserver
from bots.sandbox.scheduling import pin_to_one_cpu, wait_without_preempting

BOT = "def play(observation):\n    return {'plays': []}\n"


def test_the_cpu_is_chosen_by_index_among_those_allowed(monkeypatch):
    pinned = []
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 1, 5})
    monkeypatch.setattr(os, "sched_setaffinity", lambda pid, cpus: pinned.append(cpus))
    assert [pin_to_one_cpu(index) for index in range(4)] == [1, 3, 5, 1]
    assert pinned == [{1}, {3}, {5}, {1}]
    assert pin_to_one_cpu(-1) == 5  # the last one allowed (bench.sandbox --one-cpu)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert pin_to_one_cpu(7) is None


def test_a_pool_process_keeps_to_one_cpu_and_its_fork_server_with_it(sandbox_works, tmp_path: Path):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU only")
    saved = os.sched_getaffinity(0)
    forkserver.stop_all()  # one started before the pinning would keep every CPU
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    try:
        cpu = pin_to_one_cpu(1)
        with SandboxedPlayer(bot) as player:
            player.start(10)
            assert os.sched_getaffinity(player.sandbox_pid) == {cpu}
    finally:
        os.sched_setaffinity(0, saved)
        forkserver.stop_all()


def test_the_runner_waits_without_preempting_once_and_keeps_other_policies(monkeypatch):
    policies = {0: os.SCHED_OTHER}
    monkeypatch.setattr(os, "sched_getscheduler", lambda pid: policies[pid])
    monkeypatch.setattr(os, "sched_setscheduler", lambda pid, policy, param: policies.update({pid: policy}))
    wait_without_preempting()
    assert policies[0] == os.SCHED_BATCH
    policies[0] = os.SCHED_IDLE  # an operator's choice (e.g. chrt --idle) is kept
    wait_without_preempting()
    assert policies[0] == os.SCHED_IDLE


def test_a_runner_and_its_bots_run_under_sched_batch(sandbox_works, tmp_path: Path):
    """Woken by a reply, the runner does not preempt the bot on its way to stopping, nor the bot the runner."""
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    forkserver.stop_all()  # the fork server (and so every harness) takes the policy the runner has when it starts it
    try:
        with SandboxedPlayer(bot) as player:
            player.start(10)
            player.play({}, 5)
            assert os.sched_getscheduler(0) == os.SCHED_BATCH
            assert os.sched_getscheduler(player._sandbox.child_pid) == os.SCHED_BATCH
    finally:
        forkserver.stop_all()


def test_the_sandbox_bench_plays_on_one_cpu_as_a_pool_process_does(sandbox_works):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU only")
    command = [sys.executable, "-m", "bench.sandbox", "--one-cpu", "--only", "tripcpu", "--turns", "20", "--json"]
    root = Path(__file__).resolve().parents[2]
    figures = json.loads(subprocess.run(command, cwd=root, capture_output=True, check=True, timeout=120).stdout)
    assert figures["cpu"] == max(os.sched_getaffinity(0))
    trips = figures["tripcpu"]
    assert trips["turns"] == 20 and trips["bare_parent_us"] > 0
    assert trips["bare_stopping_parent_us"] > 0 and trips["bare_stopping_child_us"] > 0
    # the harness outside any sandbox, with the bot loaded, answering every request: far more work than the bare child
    assert trips["unsandboxed_parent_us"] > 0 and trips["unsandboxed_harness_us"] > trips["bare_stopping_child_us"]


def test_the_sandbox_bench_splits_a_respawn_between_runner_fork_server_and_harness(sandbox_works):
    command = [sys.executable, "-m", "bench.sandbox", "--only", "respawn", "--starts", "2", "--json"]
    root = Path(__file__).resolve().parents[2]
    row = json.loads(subprocess.run(command, cwd=root, capture_output=True, check=True, timeout=120).stdout)["respawn"]
    assert row["starts"] == 20
    # every start forks a harness from the fork server: both copy pages of the fork server's memory, and the harness
    # (which imports the bot and plays a turn) far more than the fork server
    assert row["harness_faults"] > row["fork_server_faults"] > 0
    assert row["runner_cpu_ms"] > 0 and row["wall_ms"] > row["runner_cpu_ms"]
    assert row["spaced_starts"] == 2 and row["spaced_wall_median_ms"] > 0
    assert isinstance(row["cgroups_favor_moves"], bool)
