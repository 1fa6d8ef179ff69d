"""The worker's own environment, judged apart from the matches it plays.

A run can fail because of the machine it runs on: its scratch space full or read-only, no file descriptors or memory
left, bubblewrap missing, cgroups broken. Such a failure is no bot's and no match's: the match goes back to the queue
without counting an attempt, and the worker stops taking matches (it cancels its own consumers of the match queues)
until its self-check (a scratch write and, where bots are sandboxed, one sandboxed game) passes again. Whether an
error says the host is broken is not guessed from the error alone: the self-check is run at once and decides. An
error of that kind after which the self-check passes was the match's own doing (its bot's upload filled the disk
while being unpacked, say), and counts as the match's failure.
"""

from __future__ import annotations

import errno
import logging
import os
import tempfile
import time
from pathlib import Path

from django.conf import settings
from django.utils import timezone

import bots.selfcheck
from bots.sandbox.bwrap import SandboxUnavailable, scratch_root
from bots.sandbox.limits import SandboxLimits
from league.arena import queue
from league.arena.models import WorkerHealth
from league.celery import app

log = logging.getLogger(__name__)

# errno values that say the worker's machine, not the run, is short of something
HOST_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EMFILE, errno.ENFILE, errno.ENOMEM})
PROBE_BYTES = 64 * 1024
SANDBOX_STARTUP_SECONDS = 30.0
RECHECK_SECONDS = 5.0


class HostSick(Exception):
    """This worker's environment is broken (its self-check failed too): it must play nothing until it heals."""


def environment_fault(error: BaseException) -> str | None:
    """What `error` (or an error it was raised from) says is wrong with the worker's machine, or None."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, SandboxUnavailable):
            return f"the sandbox is unavailable: {current}"
        if isinstance(current, MemoryError):
            return "the worker ran out of memory"
        if isinstance(current, OSError) and current.errno in HOST_ERRNOS:
            return f"{os.strerror(current.errno)} ({current})"
        current = current.__cause__ or current.__context__
    return None


def self_check() -> str | None:
    """None when this worker can play matches: it can write where it keeps its scratch and cache files and, where bots
    are sandboxed, play a sandboxed game. Otherwise what failed."""
    for folder in (scratch_root(), str(settings.ARENA_CACHE_DIR)):
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".thegame-selfcheck-") as probe:
                probe.write(b"\0" * PROBE_BYTES)
                probe.flush()
                os.fsync(probe.fileno())
        except OSError as error:
            return f"cannot write to {folder}: {error}"
    if settings.ARENA_SANDBOX:
        limits = SandboxLimits(require_cgroups=not settings.ARENA_SANDBOX_WITHOUT_CGROUPS)
        try:
            bots.selfcheck.check(SANDBOX_STARTUP_SECONDS, limits)
        except Exception as error:  # whatever stops one sandboxed game stops every match
            return f"the sandbox self-check failed: {type(error).__name__}: {error}"
    return None


def record(node: str, problem: str | None) -> None:
    """Store what the last self-check of `node` found (None: it passed)."""
    now = timezone.now()
    if problem is None:
        WorkerHealth.objects.filter(name=node, sick=True).update(sick=False, checked_at=now, recovered_at=now)
        return
    updated = WorkerHealth.objects.filter(name=node, sick=True).update(reason=problem, checked_at=now)
    if not updated:
        WorkerHealth.objects.update_or_create(
            name=node[:200],
            defaults={"sick": True, "reason": problem, "since": now, "checked_at": now, "recovered_at": None},
        )


def own_match_queues() -> list[str]:
    """The match queues this worker consumes (its --queues), all of them when it was started without."""
    matches = list(queue.match_queues())
    chosen = app.amqp.queues.consume_from or {}
    return [name for name in matches if name in chosen] or matches


def stand_down(node: str, problem: str, recheck: float = RECHECK_SECONDS) -> None:
    """Stop `node` taking matches, and take them again once its self-check passes (blocking this pool process)."""
    queues = own_match_queues()
    record(node, problem)
    for name in queues:
        app.control.cancel_consumer(name, destination=[node])
    log.error("worker %s is sick: %s; it takes no match from %s until its self-check passes", node, problem, queues)
    while problem is not None:
        time.sleep(recheck)
        problem = self_check()
        record(node, problem)
    for name in queues:
        app.control.add_consumer(name, destination=[node])
    log.warning("worker %s passed its self-check: it takes matches again from %s", node, queues)
