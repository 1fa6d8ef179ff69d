"""A pool process that ends leaves none of its sandboxes or their folders behind (league/celery.py): it ends by
os._exit, which runs no atexit handler."""

from __future__ import annotations

import pytest

from bots.sandbox import SandboxedPlayer, SandboxUnavailable, pool, workdirs
from bots.sandbox.limits import SandboxLimits
from league import celery


def test_a_pool_process_removes_the_bot_folders_it_kept_as_it_ends(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    kept = workdirs.acquire(bot, SandboxLimits())
    workdirs.release(kept)
    assert kept.is_dir()  # kept for the upload's next sandbox
    celery.remove_the_sandbox_folders()
    assert not kept.exists()


def test_a_pool_process_ends_the_sandboxes_it_kept_as_it_ends(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    with SandboxedPlayer(bot, reuse=True) as player:
        try:
            player.start(10)
        except SandboxUnavailable as error:
            pytest.skip(f"no usable sandbox on this host: {error}")
        sandbox = player._sandbox
    assert pool.kept() == 1 and sandbox.built()  # kept for the upload's next match, its cgroups with it
    groups = list(sandbox.cgroup.directories) if sandbox.cgroup is not None else []
    celery.remove_the_sandbox_folders()
    assert pool.kept() == 0 and not sandbox.built() and sandbox.killed
    assert [group for group in groups if group.exists()] == []
