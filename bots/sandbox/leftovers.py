"""Directories of runner processes that died: a worker killed mid-match never removes what it made.

A runner names each directory it makes on the scratch file system for itself (`<prefix><pid>-<random>`) and
removes it when done. A runner killed outright (SIGKILL, out of memory) leaves them behind: sandbox
directories holding its bots' code and files in memory on /dev/shm, and mount points of its staged runtime.
The next runner on the machine finds those whose maker is gone.
"""

from __future__ import annotations

import os
from pathlib import Path

SANDBOX_PREFIX = "thegame-sandbox-"


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
