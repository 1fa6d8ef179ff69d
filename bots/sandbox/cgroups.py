"""Per-sandbox cgroups (memory and process count), where the host lets the runner create them.

rlimits bound each process; a cgroup bounds the sandbox as a whole, including what it stores on its tmpfs
and kernel memory. Both cgroup v2 (unified) and v1 (per-controller hierarchies) are handled. Creating one
needs write access to the cgroup tree, which in practice means a root runner; without it the sandbox runs
on rlimits alone. The launcher moves itself into the group before it executes bwrap, so everything the
sandbox ever starts is inside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP_PARENT = "thegame-arena"
SLACK_BYTES = 64 * 1024 * 1024  # the interpreter's own page cache and kernel memory on top of the bot's


@dataclass
class Cgroup:
    directories: list[Path]
    version: int

    @property
    def procs_files(self) -> list[str]:
        return [str(directory / "cgroup.procs") for directory in self.directories]

    def oom_killed(self) -> bool:
        """Whether the kernel killed something in the group for exceeding its memory limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        for directory in self.directories:
            try:
                text = (directory / name).read_text()
            except OSError:
                continue
            match = re.search(r"^oom_kill (\d+)$", text, flags=re.MULTILINE)
            if match and int(match.group(1)) > 0:
                return True
        return False

    def remove(self) -> None:
        """Delete the group; call only once its processes are gone (a busy group is left for the OS)."""
        for directory in self.directories:
            try:
                directory.rmdir()
            except OSError:
                pass


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per controller ('' for the v2 unified hierarchy)."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def create(name: str, memory_bytes: int, processes: int) -> Cgroup | None:
    """A fresh group limiting memory and tasks, or None when the host offers no usable cgroups."""
    own = _own_paths()
    try:
        if (CGROUP_ROOT / "cgroup.controllers").exists():
            return _create_v2(own.get("", "/"), name, memory_bytes, processes)
        if (CGROUP_ROOT / "memory").is_dir() and (CGROUP_ROOT / "pids").is_dir():
            return _create_v1(own, name, memory_bytes, processes)
    except OSError:
        return None
    return None


def _create_v2(own: str, name: str, memory_bytes: int, processes: int) -> Cgroup | None:
    parent = CGROUP_ROOT / own.lstrip("/") / GROUP_PARENT
    parent.mkdir(exist_ok=True)
    available = set((parent / "cgroup.controllers").read_text().split())
    if not {"memory", "pids"} <= available:
        return None
    _write(parent / "cgroup.subtree_control", "+memory +pids")
    group = parent / name
    group.mkdir()
    cgroup = Cgroup([group], 2)
    try:
        _write(group / "memory.max", str(memory_bytes + SLACK_BYTES))
        if (group / "memory.swap.max").exists():
            _write(group / "memory.swap.max", "0")
        _write(group / "pids.max", str(processes))
    except OSError:
        cgroup.remove()
        raise
    return cgroup


def _create_v1(own: dict[str, str], name: str, memory_bytes: int, processes: int) -> Cgroup | None:
    directories: list[Path] = []
    cgroup = Cgroup(directories, 1)
    try:
        for controller, settings in (
            ("memory", {"memory.limit_in_bytes": memory_bytes + SLACK_BYTES}),
            ("pids", {"pids.max": processes}),
        ):
            parent = CGROUP_ROOT / controller / own.get(controller, "/").lstrip("/") / GROUP_PARENT
            parent.mkdir(exist_ok=True)
            group = parent / name
            group.mkdir()
            directories.append(group)
            for setting, value in settings.items():
                _write(group / setting, str(value))
    except OSError:
        cgroup.remove()
        raise
    return cgroup


def leftover_groups() -> list[Path]:
    """Sandbox groups of this process's cgroup tree that still exist (for leak checks)."""
    own = _own_paths()
    parents = [CGROUP_ROOT / own.get("", "/").lstrip("/") / GROUP_PARENT]
    parents += [CGROUP_ROOT / c / own.get(c, "/").lstrip("/") / GROUP_PARENT for c in ("memory", "pids")]
    return [path for parent in parents if parent.is_dir() for path in parent.iterdir() if path.is_dir()]
