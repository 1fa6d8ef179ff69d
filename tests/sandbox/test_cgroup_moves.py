"""Whether moving a bot into its cgroups waits for an RCU grace period: told from the cgroup mounts' options."""

from __future__ import annotations

import os

import pytest

from bots import selfcheck
from bots.sandbox import cgroups

HYBRID = """\
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime{unified} 0 0
"""


def test_moves_wait_unless_a_cgroup_hierarchy_favors_them():
    assert not cgroups.favors_moves(HYBRID.format(unified=""))
    assert cgroups.favors_moves(HYBRID.format(unified=",favordynmods"))
    assert cgroups.favors_moves("cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids,favordynmods 0 0\n")
    assert cgroups.favors_moves("cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nsdelegate,favordynmods 0 0\n")


def test_only_a_cgroup_mounts_option_counts():
    assert not cgroups.favors_moves("tmpfs /favordynmods tmpfs rw,favordynmods 0 0\n")
    assert not cgroups.favors_moves("cgroup2 /sys/fs/cgroup cgroup2 rw,nofavordynmods 0 0\n")
    assert not cgroups.favors_moves("")


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner creates cgroups")
def test_the_sandbox_check_names_the_setting_where_moves_wait(sandbox_works, monkeypatch):
    if not cgroups.available():
        pytest.skip("this host offers no cgroups to the runner")
    monkeypatch.setattr(cgroups, "favors_moves", lambda mounts=None: False)
    assert "mount a cgroup hierarchy with favordynmods" in selfcheck.check(startup_seconds=30)
    monkeypatch.setattr(cgroups, "favors_moves", lambda mounts=None: True)
    summary = selfcheck.check(startup_seconds=30)
    assert summary.endswith("each sandbox gets its own cgroups")
