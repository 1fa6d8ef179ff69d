"""Sandboxes kept between matches in a runner process, so that a bot's next match puts a new harness into its last
sandbox instead of building one: bwrap, its namespaces and mounts and the sandbox's cgroups are some 7 ms of the
12 ms of CPU a start costs.

Only a sandbox whose harness has ended is kept (SandboxProcess.end_harness): nothing of the bot runs in it, and the
next harness to join it mounts a new /tmp, so a kept sandbox carries nothing of one match into the next, as a new one
would not. It is kept for the same upload under the same limits alone (its directory is bound into it), at most
IDLE_SECONDS and among the CAPACITY most recently kept; the others, and all of them at the process's end, are killed.
A sandbox whose bwrap or PID 1 died meanwhile (its fork server ended, say) is dropped when it is asked for.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox import workdirs
from bots.sandbox.process import SandboxProcess

CAPACITY = 32  # idle sandboxes a runner process keeps (some 0.6 MB each): a worker cycles through the active uploads
IDLE_SECONDS = 120.0


@dataclass(eq=False)  # one kept sandbox is itself alone
class _Idle:
    key: Hashable
    sandbox: SandboxProcess
    workdir: Path  # held (workdirs.acquire) for as long as the sandbox is kept
    since: float


_lock = threading.Lock()
_idle: list[_Idle] = []  # oldest first


def keep(key: Hashable, sandbox: SandboxProcess, workdir: Path) -> None:
    """Keep `sandbox` (its harness ended) for the next start under `key`, with its hold on `workdir`."""
    sandbox.log.clear()  # what the last harness wrote was its match's
    sandbox.log_dropped = 0
    with _lock:
        _idle.append(_Idle(key, sandbox, workdir, time.monotonic()))
        dropped = _expired()
    _discard(dropped)


def take(key: Hashable) -> SandboxProcess | None:
    """A kept sandbox for `key`, still built, now the caller's (its workdir hold released: the caller has its own)."""
    with _lock:
        found = next((idle for idle in reversed(_idle) if idle.key == key), None)
        if found is not None:
            _idle.remove(found)
        dropped = _expired()
    _discard(dropped)
    if found is None:
        return None
    workdirs.release(found.workdir)
    if not found.sandbox.built():
        found.sandbox.kill()
        return take(key)
    return found.sandbox


@atexit.register
def clear() -> None:
    """Kill every kept sandbox."""
    with _lock:
        dropped = list(_idle)
        _idle.clear()
    _discard(dropped)


def kept() -> int:
    with _lock:
        return len(_idle)


def _expired() -> list[_Idle]:
    """Take out those past IDLE_SECONDS or beyond CAPACITY (the lock held)."""
    oldest = time.monotonic() - IDLE_SECONDS
    dropped = [idle for idle in _idle if idle.since < oldest]
    dropped += [idle for idle in _idle if idle not in dropped][: max(0, len(_idle) - len(dropped) - CAPACITY)]
    for idle in dropped:
        _idle.remove(idle)
    return dropped


def _discard(dropped: list[_Idle]) -> None:
    for idle in dropped:
        idle.sandbox.send_kill()  # all signalled first: their ends overlap
    for idle in dropped:
        idle.sandbox.kill()
        workdirs.release(idle.workdir)
