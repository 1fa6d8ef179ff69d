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
