"""A worker's pool process on one CPU, its sandboxes with it (bots/sandbox/affinity.py, league/celery.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bots.sandbox import SandboxedPlayer, forkserver
from bots.sandbox.affinity import pin_to_one_cpu

BOT = "def play(observation):\n    return {'plays': []}\n"


def test_the_cpu_is_chosen_by_index_among_those_allowed(monkeypatch):
    pinned = []
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3, 1, 5})
    monkeypatch.setattr(os, "sched_setaffinity", lambda pid, cpus: pinned.append(cpus))
    assert [pin_to_one_cpu(index) for index in range(4)] == [1, 3, 5, 1]
    assert pinned == [{1}, {3}, {5}, {1}]
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
