"""Sandboxes kept between matches in a runner process, so that a bot's next match puts a new harness into its last
sandbox instead of building one: bwrap, its namespaces and mounts and the sandbox's cgroups are some 7 ms of the
12 ms of CPU a start costs.

Only a sandbox whose harness has ended is kept (SandboxProcess.end_harness): nothing of the bot runs in it, and the
next harness to join it mounts a new /tmp, so a kept sandbox carries nothing of one match into the next, as a new one
would not. It is kept for the same upload under the same limits alone (its directory is bound into it), at most
IDLE_SECONDS and among the CAPACITY most recently kept; the others, and all of them at the process's end, are killed.
A timer kills each one once its time is up, whether or not another match comes: a worker that has stopped playing
keeps no sandbox past a few seconds. A busy worker plays the same uploads again well within them (a tournament's
round robin, the ladder's bursts). A sandbox whose bwrap or PID 1 died meanwhile (its fork server ended, say) is
dropped when it is asked for.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox import workdirs
from bots.sandbox.process import SandboxProcess

CAPACITY = 32  # idle sandboxes a runner process keeps (some 0.6 MB each): a worker cycles through the active uploads
IDLE_SECONDS = 2.0
SWEEP_LATENESS = 0.05  # after the time is up: the sandbox then counts as expired whatever the clock's rounding


@dataclass(eq=False)  # one kept sandbox is itself alone
class _Idle:
    key: Hashable
    sandbox: SandboxProcess
    workdir: Path  # held (workdirs.acquire) for as long as the sandbox is kept
    since: float


_lock = threading.Lock()
_idle: list[_Idle] = []  # oldest first
_sweeper: threading.Timer | None = None  # due when the oldest kept sandbox's time is up


def keep(key: Hashable, sandbox: SandboxProcess, workdir: Path) -> None:
    """Keep `sandbox` (its harness ended) for the next start under `key`, with its hold on `workdir`."""
    sandbox.log.clear()  # what the last harness wrote was its match's
    sandbox.log_dropped = 0
    with _lock:
        _idle.append(_Idle(key, sandbox, workdir, time.monotonic()))
        dropped = _expired()
        _schedule_sweep()
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
    global _sweeper
    with _lock:
        dropped = list(_idle)
        _idle.clear()
        if _sweeper is not None:
            _sweeper.cancel()
            _sweeper = None
    _discard(dropped)


def kept() -> int:
    with _lock:
        return len(_idle)


def _schedule_sweep() -> None:
    """Have the oldest kept sandbox killed when its time is up, if no sweep is due already (the lock held)."""
    global _sweeper
    if _sweeper is None and _idle:
        due = _idle[0].since + IDLE_SECONDS - time.monotonic()
        _sweeper = threading.Timer(max(due, 0.0) + SWEEP_LATENESS, _sweep)
        _sweeper.daemon = True  # a process that ends does not wait for it: clear() ends its sandboxes
        _sweeper.start()


def _sweep() -> None:
    global _sweeper
    with _lock:
        _sweeper = None
        dropped = _expired()
        _schedule_sweep()
    _discard(dropped)


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


def _forget_after_fork() -> None:
    """In a forked child: the kept sandboxes are the parent's, which ends them (and the sweep is its thread's)."""
    global _lock, _sweeper
    _lock = threading.Lock()  # it may have been held by the parent's sweep as it forked
    _idle.clear()
    _sweeper = None


os.register_at_fork(after_in_child=_forget_after_fork)
