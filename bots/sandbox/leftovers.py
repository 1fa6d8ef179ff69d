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


def _dead_runner(name: str, prefix: str) -> bool:
    """Whether `name` (a directory's name, or a path) is `<prefix><pid>-...` of a runner other than this one that has
    ended."""
    if not name.startswith(prefix):
        return False
    pid, dash, _ = name[len(prefix) :].partition("-")
    return bool(dash) and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid))


def orphans(root: str | Path, prefix: str) -> list[Path]:
    """The directories under `root` named `<prefix><pid>-...` whose process `pid` has ended."""
    return [entry for entry in Path(root).glob(f"{prefix}*") if _dead_runner(entry.name, prefix)]


def _names_dead_runner(pid: int, marker: str) -> bool:
    """Whether process `pid` is a bwrap whose command line names a directory of a runner that has ended (`marker`:
    `<root>/<prefix>`)."""
    try:
        if Path(f"/proc/{pid}/comm").read_bytes().rstrip(b"\n") != STRAY_NAME:
            return False
        arguments = [os.fsdecode(argument) for argument in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]
    except OSError:
        return False  # gone, or not ours to read
    named = [argument for argument in arguments if argument.startswith(marker)]
    return bool(named) and all(_dead_runner(argument, marker) for argument in named)


def _marker(root: str | Path, prefix: str) -> str:
    return f"{Path(root)}/{prefix}"


def stray_processes(root: str | Path, prefix: str = SANDBOX_PREFIX) -> list[int]:
    """The PIDs of the bwraps whose command line names `<root>/<prefix><pid>-...` of a runner that has ended."""
    marker = _marker(root, prefix)
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit() and _names_dead_runner(int(entry), marker)]


def end_strays(root: str | Path, prefix: str = SANDBOX_PREFIX) -> int:
    """Kill every stray of a dead runner (stray_processes) and wait, up to STRAY_EXIT_SECONDS, for them to be gone;
    how many were killed. Each is checked again through a pidfd before the signal, so a PID reused meanwhile is
    never hit."""
    marker = _marker(root, prefix)
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
