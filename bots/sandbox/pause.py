"""Holding a sandbox still while it is not its turn: the harness stops itself after each reply, the runner checks that
every thread of it stopped, that it stayed stopped, and continues it.

Every task of a sandbox's harness is a thread of its process (seccomp refuses any other kind of clone), so one
SIGSTOP to that thread group stops them all: background threads, and signal handlers (an itimer's SIGALRM) that
would otherwise run while it waits for the next request. The harness sends it to itself right after writing its
reply (harness.py: it is PID 2 of its PID namespace, not PID 1, which would ignore it), so stopping costs no
wake-up. A thread stops only once it is back from the kernel, though: one in a long system call (a page fault of
a huge region, a populating mmap) works on after the others have stopped. So the turn ends when every thread is
seen stopped in /proc (`state`), not the main one alone, and a bot that keeps a thread from stopping is still in
its turn, on its clock.

Nothing inside the sandbox can continue it (seccomp refuses every way to have SIGCONT sent, and it has no
terminal): only the runner does, through a pidfd (immune to PID reuse), once the next request is written. The
runner still checks: it reads the sandbox's CPU time when the turn ends and again before it continues it
(`cpu_ns`, one system call each); CPU time that grew meanwhile is charged to the bot's next turn, and more than
`RUN_WHILE_STOPPED_NS` of it, or a process that is not stopped, means the bot ran while it was held: it forfeits
(a sandbox violation). SIGKILL still ends a stopped process, so a stopped sandbox is killed like any other.

`python -m bench.sandbox_pause` measures what it costs and what it buys an opponent.
"""

from __future__ import annotations

import os
import signal
import time

STOPPED = "T"  # the state letter of a stopped task in /proc
CPUCLOCK_SCHED = 2  # linux/posix-timers.h: a process's CPU clock that counts every nanosecond it ran
# A task's last instructions of its way into the stop (after its state says stopped) are counted a moment later;
# a bot that ran while held shows far more than these few microseconds.
RUN_WHILE_STOPPED_NS = 2_000_000
STAT_BYTES = 256  # of /proc/PID/stat: past the thread count (field 20), whatever the process's name


def cpu_clock(pid: int) -> int:
    """The clock whose time is process `pid`'s CPU time, all its threads' together (what clock_getcpuclockid(3)
    gives, which Python lacks): MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)."""
    return (~pid << 3) | CPUCLOCK_SCHED


def cpu_ns(clock: int) -> int | None:
    """The CPU time of the process `clock` (from cpu_clock) so far, in nanoseconds; None once it is gone."""
    try:
        return time.clock_gettime_ns(clock)
    except OSError:
        return None


def state(stat_fd: int, pid: int) -> str | None:
    """The sandbox's state letter: STOPPED once every thread of it is stopped, else the first other state seen
    (R, S, D, Z...), None once it is gone. `stat_fd` is its /proc/PID/stat, read first: it shows the main thread's
    state and how many threads there are, so the usual single-threaded bot costs one read (parsed as little as
    that needs: it is read at the end of every turn)."""
    leader = _leader(stat_fd)
    if leader is None:
        return None
    letter, threads = leader
    if letter != STOPPED or threads == b"1":
        return letter
    letter = _threads_state(pid, int(threads))
    if letter != STOPPED:
        return letter
    # a thread that was still running when it was listed may have started another before it stopped
    return STOPPED if _leader(stat_fd) == leader else "R"


def stopped_alone(stat_fd: int) -> bool:
    """Whether the process of `stat_fd` (its /proc/PID/stat) is stopped and has a single thread, so stopped whole: how
    a turn usually ends, told from one read (state() says the same, and also how a larger process stands)."""
    try:
        text = os.pread(stat_fd, STAT_BYTES, 0)
        fields = text[text.rindex(b")") + 2 :].split(b" ", 18)
    except (OSError, ValueError):
        return False
    return fields[0] == b"T" and len(fields) > 17 and fields[17] == b"1"


def _leader(stat_fd: int) -> tuple[str, bytes] | None:
    """(the main thread's state letter, the number of threads as its digits), or None once the process is gone."""
    try:
        text = os.pread(stat_fd, STAT_BYTES, 0)
        fields = text[text.rindex(b")") + 2 :].split(b" ", 18)  # the name, before ")", may hold anything
        return fields[0].decode(), fields[17]
    except (OSError, TypeError, IndexError, ValueError):
        return None


def _threads_state(pid: int, threads: int) -> str | None:
    """STOPPED if each of the process's `threads` threads is (else the first other state seen)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    if len(tasks) != threads:
        return "R"  # one was starting or ending (a stopped thread does neither): look again
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb", buffering=0) as stat:
                letter = stat.read(STAT_BYTES).rpartition(b")")[2].split()[0].decode()
        except (OSError, IndexError):
            return "R"  # it just ended
        if letter in "ZX":
            return "R"  # a thread on its way out (only the main thread's end is the process's): look again
        if letter != STOPPED:
            return letter
    return STOPPED


def resume(pidfd: int) -> bool:
    """Let a stopped sandbox run again; False when it has already exited."""
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGCONT)
    except ProcessLookupError:
        return False  # it has exited; the next read of its pipes sees that
    return True
