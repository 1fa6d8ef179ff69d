"""The sandbox groups a killed runner left behind (a worker killed mid-match) are removed by the next runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots.sandbox import cgroups

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner creates cgroups")


def _dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True).stdout)


def test_the_next_runner_removes_the_groups_of_a_dead_one_and_no_other():
    probe = cgroups.create(f"{cgroups.GROUP_PREFIX}{os.getpid()}-layout", 1 << 26, 4)
    if probe is None:
        pytest.skip("no writable cgroup tree here")
    folders = [directory.parent for directory in probe.directories]
    probe.remove()
    dead, alive = f"{cgroups.GROUP_PREFIX}{_dead_pid()}-7", f"{cgroups.GROUP_PREFIX}1-7"  # PID 1 never dies
    for folder in folders:
        for name in (dead, alive):
            (folder / name).mkdir()
    try:
        cgroups._remove_orphans_once.cache_clear()  # as in a runner that has made no group yet
        fresh = cgroups.create(f"{cgroups.GROUP_PREFIX}{os.getpid()}-fresh", 1 << 26, 4)
        fresh.remove()
        assert [(folder / dead).exists() for folder in folders] == [False] * len(folders)
        assert [(folder / alive).exists() for folder in folders] == [True] * len(folders)
    finally:
        for folder in folders:
            for name in (dead, alive):
                if (folder / name).exists():
                    (folder / name).rmdir()


def test_a_group_with_a_process_in_it_is_left_alone():
    probe = cgroups.create(f"{cgroups.GROUP_PREFIX}{_dead_pid()}-busy", 1 << 26, 4)
    if probe is None:
        pytest.skip("no writable cgroup tree here")
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        for directory in probe.directories:
            Path(directory / "cgroup.procs").write_text(str(sleeper.pid))
        cgroups._remove_orphans_once.cache_clear()
        cgroups.create(f"{cgroups.GROUP_PREFIX}{os.getpid()}-fresh", 1 << 26, 4).remove()
        assert all(directory.exists() for directory in probe.directories)
    finally:
        sleeper.kill()
        sleeper.wait()
        probe.remove()
