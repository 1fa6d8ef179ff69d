"""Holding a sandbox still while it is not its turn: the harness stops itself after each reply, the runner continues it.

Every task of a sandbox's harness is a thread of its process (seccomp refuses any other kind of clone), so one
SIGSTOP to that thread group stops them all: background threads, and signal handlers (an itimer's SIGALRM) that
would otherwise run while it waits for the next request. The harness sends it to itself right after writing its
reply (harness.py: it is PID 2 of its PID namespace, not PID 1, which would ignore it), so stopping costs no
wake-up; the runner sees the stop in /proc before the turn counts as over (process.py), and a bot that keeps
its harness from stopping is still in its turn, on its clock. A bot cannot catch, block or undo SIGSTOP, and it
cannot send SIGCONT at all (seccomp): only the runner continues it, through a pidfd (immune to PID reuse), once
the next request is written. SIGKILL still ends a stopped process, so a stopped sandbox is killed like any other.

`bench/sandbox_pause.py` measures what it costs and what it buys an opponent.
"""

from __future__ import annotations

import signal


def resume(pidfd: int) -> bool:
    """Let a stopped sandbox run again; False when it has already exited."""
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGCONT)
    except ProcessLookupError:
        return False  # it has exited; the next read of its pipes sees that
    return True
