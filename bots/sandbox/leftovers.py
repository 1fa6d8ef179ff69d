"""What runner processes that died left behind: a worker killed mid-match never removes what it made.

A runner names each directory it makes on the scratch file system for itself (`<prefix><pid>-<random>`) and
removes it when done. A runner killed outright (SIGKILL, out of memory) leaves them behind: sandbox
directories holding its bots' code and files in memory on /dev/shm, and mount points of its staged runtime.
The next runner on the machine finds those whose maker is gone.

It can also leave a process. bwrap's child takes its parent-death signal only just before its exec, and waits for
bwrap to write its uid map before that: a runner killed while bwrap built a sandbox takes bwrap with it (bwrap's
own death signal), and the child waits for good (seen: a runner killed within 4 ms of launching a sandbox, about
one time in four). Such a stray names its runner's sandbox directory in its command line, which is how the next
runner finds it and ends it (`end_strays`).
"""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path

SANDBOX_PREFIX = "thegame-sandbox-"
STRAY_NAME = b"bwrap"  # the only program of a sandbox that outlives a killed runner (see above)
STRAY_EXIT_SECONDS = 2.0  # for the strays killed to be gone (their namespaces and mounts with them)


def own_prefix(prefix: str) -> str:
    """The name prefix of this process's directories of that kind."""
    return f"{prefix}{os.getpid()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, under another uid
    return True


def orphans(root: str | Path, prefix: str) -> list[Path]:
    """The directories under `root` named `<prefix><pid>-...` whose process `pid` has ended."""
    found = []
    for entry in Path(root).glob(f"{prefix}*"):
        pid, dash, _ = entry.name[len(prefix) :].partition("-")
        if dash and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            found.append(entry)
    return found


def _runner_of(argument: bytes, marker: bytes) -> int | None:
    """The runner PID in `<root>/<prefix><pid>-...` if `argument` names such a directory (or a path in it)."""
    if not argument.startswith(marker):
        return None
    pid, dash, _ = argument[len(marker) :].partition(b"-")
    return int(pid) if dash and pid.isdigit() else None


def _names_dead_runner(pid: int, marker: bytes) -> bool:
    """Whether process `pid` is a bwrap whose command line names a directory of a runner that has ended."""
    try:
        if Path(f"/proc/{pid}/comm").read_bytes().rstrip(b"\n") != STRAY_NAME:
            return False
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False  # gone, or not ours to read
    runners = {runner for argument in arguments if (runner := _runner_of(argument, marker)) is not None}
    return bool(runners) and all(runner != os.getpid() and not _alive(runner) for runner in runners)


def stray_processes(root: str | Path, prefix: str = SANDBOX_PREFIX) -> list[int]:
    """The PIDs of the bwraps whose command line names `<root>/<prefix><pid>-...` of a runner that has ended."""
    marker = os.fsencode(f"{Path(root)}/{prefix}")
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit() and _names_dead_runner(int(entry), marker)]


def end_strays(root: str | Path, prefix: str = SANDBOX_PREFIX) -> int:
    """Kill every stray of a dead runner (stray_processes) and wait, up to STRAY_EXIT_SECONDS, for them to be gone;
    how many were killed. Each is checked again through a pidfd before the signal, so a PID reused meanwhile is
    never hit."""
    marker = os.fsencode(f"{Path(root)}/{prefix}")
    killed = []
    for pid in stray_processes(root, prefix):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            continue  # gone meanwhile
        if _names_dead_runner(pid, marker):  # the pidfd now holds that very process, whatever comes later
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                killed.append(pidfd)
                continue
            except OSError:  # ended meanwhile, or another user's (a runner of another uid will end it)
                pass
        os.close(pidfd)
    deadline = time.monotonic() + STRAY_EXIT_SECONDS
    for pidfd in killed:
        waiter = select.poll()
        waiter.register(pidfd, select.POLLIN)  # readable once it has exited
        waiter.poll(max(0.0, deadline - time.monotonic()) * 1000)
        os.close(pidfd)
    return len(killed)
