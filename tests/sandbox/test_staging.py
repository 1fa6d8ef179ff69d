"""The staged Python runtime: one mount namespace per runner process, and no mount point left behind."""

from __future__ import annotations

import os
import subprocess
import sys

from bots.sandbox import staging


def test_mount_points_of_ended_runners_are_removed_and_live_ones_kept(tmp_path):
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(ended.stdout)
    dead = tmp_path / f"{staging.STAGE_PREFIX}{dead_pid}-abc123"
    alive = tmp_path / f"{staging.STAGE_PREFIX}{os.getpid()}-def456"
    unrelated = tmp_path / "thegame-sandbox-ghi789"
    for path in (dead, alive, unrelated):
        path.mkdir()
    staging._remove_stale(str(tmp_path))
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([alive.name, unrelated.name])


def test_a_killed_runners_sandbox_directories_are_removed_by_the_next_runner(tmp_path):
    """A runner SIGKILLed mid-match leaves its bots' files; the next sandbox started in that root removes them."""
    from bots.sandbox import leftovers, workdirs

    killed = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    orphan = tmp_path / f"{leftovers.SANDBOX_PREFIX}{int(killed.stdout)}-abc123"
    (orphan / "bot").mkdir(parents=True)
    (orphan / "bot" / "bot.py").write_text("secret = 1\n")
    mine = tmp_path / f"{leftovers.own_prefix(leftovers.SANDBOX_PREFIX)}def456"
    mine.mkdir()
    old_style = tmp_path / f"{leftovers.SANDBOX_PREFIX}ghi789"  # no maker in its name: not ours to judge
    old_style.mkdir()
    workdirs._remove_orphans_once.cache_clear()
    workdirs._remove_orphans_once(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([mine.name, old_style.name])
