"""Per-sandbox cgroups (memory, process count and CPU weight), where the host lets the runner create them.

rlimits bound each process; a cgroup bounds the sandbox as a whole, including what it stores on its tmpfs
and kernel memory. Where the host offers the cpu controller, each sandbox also gets one CPU weight, the default
one: the whole sandbox weighs as much as one ordinary process, however many threads it runs, so a bot cannot
take a larger share of a shared CPU from another by spinning more threads. Both cgroup v2 (unified) and v1
(per-controller hierarchies) are handled. Creating one needs write access to the cgroup tree, which in practice
means a root runner; without it the sandbox runs on rlimits alone, unless the caller requires cgroups (the league
does, for uploaded bots, unless its operator opts out): then the sandbox is not started. The sandbox is put into
its groups while bwrap holds it back, so nothing of the bot's ever runs outside them.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox import leftovers
from bots.sandbox.bwrap import SandboxUnavailable

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP_PARENT = "thegame-arena"
GROUP_PREFIX = "sbx-"  # then the runner's PID: process.py names each sandbox's group
SLACK_BYTES = 64 * 1024 * 1024  # the interpreter's own page cache and kernel memory on top of the bot's
OPT_OUT_SETTING = "ARENA_SANDBOX_WITHOUT_CGROUPS"  # the league's setting that lifts the requirement
CPU_WEIGHT = 100  # cgroup v2 cpu.weight of a sandbox: the default, what one ordinary process weighs
CPU_SHARES = 1024  # the same in cgroup v1 (cpu.shares)
MAX_CPU_WEIGHT = 10_000  # v2's largest weight (v1's shares go far higher)
# what an operator is told where no cgroup mount has favordynmods (favors_moves)
SLOW_MOVES = (
    "moving a bot into its cgroups waits for an RCU grace period (up to some 20 ms a start): mount a cgroup hierarchy "
    "with favordynmods (docs/operators.md, 'Cgroups for the sandbox')"
)


def _all_sandboxes_weight(one: int) -> int:
    """The weight of the folder holding the sandboxes: one process's for each CPU of the machine. Their folder competes
    with the machine's other processes as one; at one process's weight, every sandbox of a worker together would get
    no more of the machine than a single process, and bots would crawl (and time out) on a busy machine."""
    return one * (os.cpu_count() or 1)


class CgroupsUnavailable(SandboxUnavailable):
    """cgroups are required for this sandbox, and this runner cannot create them."""


def unavailable(root_runner: bool) -> CgroupsUnavailable:
    """The refusal to start a sandbox that requires cgroups without them, saying why and what lifts it."""
    if root_runner:
        why = f"{CGROUP_ROOT} offers no writable tree with the memory and pids controllers (as in a container)"
    else:
        why = "only a root runner creates them, and this one is not root"
    return CgroupsUnavailable(
        f"refusing to run an uploaded bot without cgroups: {why}. Without them, memory the kernel holds for "
        "the bot outside its address space (socket buffers, page tables) is bounded by nothing but its rlimits "
        f"and the sandbox's fixed caps. Set {OPT_OUT_SETTING}=true to run uploaded bots on those alone "
        "(docs/operators.md says what is then unprotected)."
    )


@dataclass
class Cgroup:
    directories: list[Path]
    version: int
    cpu_weighted: bool = False  # the host's cpu controller gave the sandbox its CPU weight

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


def _own_paths(text: str | None = None) -> dict[str, str]:
    """This process's cgroup path per controller ('' for the v2 unified hierarchy), from /proc/self/cgroup (or
    `text`, its content read already)."""
    paths: dict[str, str] = {}
    text = _proc_text("/proc/self/cgroup") if text is None else text
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _proc_text(path: str) -> str:
    """A /proc file's text; empty if it cannot be read."""
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _write(path: Path, value: str) -> None:
    path.write_text(value)


@dataclass(frozen=True)
class _Layout:
    """Where this process's sandbox groups go, their folders (one per hierarchy) already made and set up."""

    version: int
    folders: tuple[tuple[str, str], ...]  # (controller, folder) pairs; v2: one, controller ""
    weighted: bool
    swap: bool = False  # v2: the memory controller offers memory.swap.max


# The layout for the /proc/self/cgroup text it was made for: a sandbox's start then makes its own group and writes
# its limits, nothing more (the folders were made, and weighed, once). A process moved to another cgroup (its text
# changes), or a folder removed meanwhile, gets the layout made again.
_layouts: dict[str, _Layout | None] = {}


def create(name: str, memory_bytes: int, processes: int) -> Cgroup | None:
    """A fresh group limiting memory and tasks, or None when the host offers no usable cgroups."""
    try:
        with open("/proc/self/cgroup") as membership:
            text = membership.read()
    except OSError:
        return None
    for attempt in range(2):
        if attempt or text not in _layouts:
            try:
                _layouts[text] = _layout(_own_paths(text))
            except OSError:
                _layouts.pop(text, None)
                return None
        layout = _layouts[text]
        if layout is None:
            return None
        try:
            for _, folder in layout.folders:
                _remove_orphans_once(folder)
            return _make_group(layout, name, memory_bytes, processes)
        except FileNotFoundError:
            continue  # a folder is gone (removed from outside): make the layout again, once
        except OSError:
            return None
    return None


@functools.lru_cache(maxsize=16)
def _remove_orphans_once(folder: str) -> None:
    """Once per process and folder: remove the groups that runners which died left (a worker killed mid-match, before
    it removed its sandboxes' groups). Named `sbx-<pid>-...` after their runner (process.py); a group with anything
    still in it is not removed (rmdir refuses)."""
    for orphan in leftovers.orphans(folder, GROUP_PREFIX):
        try:
            orphan.rmdir()
        except OSError:
            pass


def _layout(own: dict[str, str]) -> _Layout | None:
    if (CGROUP_ROOT / "cgroup.controllers").exists():
        return _layout_v2(own.get("", "/"))
    if (CGROUP_ROOT / "memory").is_dir() and (CGROUP_ROOT / "pids").is_dir():
        return _layout_v1(own)
    return None


def _layout_v2(own: str) -> _Layout | None:
    parent = CGROUP_ROOT / own.lstrip("/") / GROUP_PARENT
    parent.mkdir(exist_ok=True)
    available = set((parent / "cgroup.controllers").read_text().split())
    if not {"memory", "pids"} <= available:
        return None
    weighted = "cpu" in available
    _write(parent / "cgroup.subtree_control", "+memory +pids" + (" +cpu" if weighted else ""))
    if weighted:
        _write(parent / "cpu.weight", str(min(MAX_CPU_WEIGHT, _all_sandboxes_weight(CPU_WEIGHT))))
    # a child's memory.swap.max exists where the parent's does (the kernel offers swap accounting or not)
    return _Layout(2, (("", str(parent)),), weighted, swap=(parent / "memory.swap.max").exists())


def _layout_v1(own: dict[str, str]) -> _Layout:
    weighted = (CGROUP_ROOT / "cpu" / "cpu.shares").exists()  # an optional controller: without it, no weight
    folders = []
    for controller in ("memory", "pids", "cpu") if weighted else ("memory", "pids"):
        parent = CGROUP_ROOT / controller / own.get(controller, "/").lstrip("/") / GROUP_PARENT
        parent.mkdir(exist_ok=True)
        if controller == "cpu":
            _write(parent / "cpu.shares", str(_all_sandboxes_weight(CPU_SHARES)))
        folders.append((controller, str(parent)))
    return _Layout(1, tuple(folders), weighted)


def _settings(layout: _Layout, controller: str, memory_bytes: int, processes: int) -> list[tuple[str, int]]:
    if layout.version == 2:
        settings = [("memory.max", memory_bytes + SLACK_BYTES)]
        if layout.swap:
            settings.append(("memory.swap.max", 0))
        settings.append(("pids.max", processes))
        return settings + ([("cpu.weight", CPU_WEIGHT)] if layout.weighted else [])
    return {
        "memory": [("memory.limit_in_bytes", memory_bytes + SLACK_BYTES)],
        "pids": [("pids.max", processes)],
        "cpu": [("cpu.shares", CPU_SHARES)],
    }[controller]


def _make_group(layout: _Layout, name: str, memory_bytes: int, processes: int) -> Cgroup:
    """The sandbox's own group in each folder of `layout`, with its limits (removed again if any cannot be set)."""
    cgroup = Cgroup([], layout.version, layout.weighted)
    try:
        for controller, folder in layout.folders:
            group = f"{folder}/{name}"
            os.mkdir(group)
            cgroup.directories.append(Path(group))
            for setting, value in _settings(layout, controller, memory_bytes, processes):
                fd = os.open(f"{group}/{setting}", os.O_WRONLY | os.O_CLOEXEC)
                try:
                    os.write(fd, str(value).encode())
                finally:
                    os.close(fd)
    except OSError:
        cgroup.remove()
        raise
    return cgroup


def available() -> bool:
    """Whether this runner can give a sandbox its cgroups (root, and a writable tree): makes and removes one."""
    if os.geteuid() != 0:
        return False
    group = create(f"sbx-{os.getpid()}-probe", SLACK_BYTES, 1)
    if group is None:
        return False
    group.remove()
    return True


def favors_moves(mounts: str | None = None) -> bool:
    """Whether the kernel lets a process be moved between cgroups without waiting for an RCU grace period: when any
    cgroup hierarchy is mounted with `favordynmods` (kernel 6.1 on; the lock it changes is one for all of them).
    Otherwise each sandbox start that follows the last move by more than a grace period waits one (some 18 ms on a
    2-vCPU guest at HZ 250) in the write that moves its bot into its cgroups. `mounts` is /proc/self/mounts's
    text, read here if None."""
    mounts = _proc_text("/proc/self/mounts") if mounts is None else mounts
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] in ("cgroup", "cgroup2") and "favordynmods" in fields[3].split(","):
            return True
    return False


def leftover_groups() -> list[Path]:
    """Sandbox groups of this process's cgroup tree that still exist (for leak checks)."""
    own = _own_paths()
    parents = [CGROUP_ROOT / own.get("", "/").lstrip("/") / GROUP_PARENT]
    parents += [CGROUP_ROOT / c / own.get(c, "/").lstrip("/") / GROUP_PARENT for c in ("memory", "pids", "cpu")]
    return [path for parent in parents if parent.is_dir() for path in parent.iterdir() if path.is_dir()]
