"""Holding a sandbox still while it is not its turn: SIGSTOP once its reply is in, SIGCONT before its next request.

Every task of a sandbox is a thread of its PID 1 (seccomp refuses any other kind of clone), so one SIGSTOP
to that thread group stops them all: background threads, and signal handlers (an itimer's SIGALRM) that
would otherwise run in the main thread while it waits for the next request. A bot cannot catch, block or
undo SIGSTOP, and nothing left running inside could send SIGCONT. SIGKILL still ends a stopped process, so
a stopped sandbox is killed like any other. The signals go through a pidfd, immune to PID reuse.

This costs two signals per turn and the wake-up of a stopped process; `bench/sandbox_pause.py`
measures it.
"""

from __future__ import annotations

import signal


def stop(pidfd: int) -> bool:
    """Stop every thread of the sandbox; False when it has already exited."""
    return _send(pidfd, signal.SIGSTOP)


def resume(pidfd: int) -> bool:
    """Let a stopped sandbox run again; False when it has already exited."""
    return _send(pidfd, signal.SIGCONT)


def _send(pidfd: int, signum: int) -> bool:
    try:
        signal.pidfd_send_signal(pidfd, signum)
    except ProcessLookupError:
        return False  # it has exited; the next read of its pipes sees that
    return True
