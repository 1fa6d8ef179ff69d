"""How the runner tells that a turn has ended from /proc (pause.py), on plain processes of its own."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from bots.sandbox import pause


@contextmanager
def child(threads: int = 1, stop: bool = True) -> Iterator[tuple[int, int]]:
    """A forked process with `threads` threads in all, stopped (SIGSTOP to itself) or spinning; (pid, its stat fd)."""
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        for _ in range(threads - 1):
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        os.write(ready_write, b"x")
        if stop:
            os.kill(os.getpid(), signal.SIGSTOP)
        while True:
            pass
    os.close(ready_write)
    os.read(ready_read, 1)
    os.close(ready_read)
    stat_fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    try:
        if stop:
            deadline = time.monotonic() + 5
            while pause.state(stat_fd, pid) != pause.STOPPED and time.monotonic() < deadline:
                time.sleep(0.001)
        yield pid, stat_fd
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass  # reaped by the test
        os.close(stat_fd)


def test_a_stopped_single_threaded_process_is_stopped_alone():
    with child() as (pid, stat_fd):
        assert pause.stopped_alone(stat_fd)
        assert pause.state(stat_fd, pid) == pause.STOPPED


def test_a_running_process_is_not():
    with child(stop=False) as (pid, stat_fd):
        assert not pause.stopped_alone(stat_fd)
        assert pause.state(stat_fd, pid) == "R"


def test_a_stopped_process_with_threads_is_left_to_the_all_threads_check():
    with child(threads=3) as (pid, stat_fd):
        assert not pause.stopped_alone(stat_fd)  # whatever its threads do: state() looks at each
        assert pause.state(stat_fd, pid) == pause.STOPPED


def test_a_process_that_is_gone_is_not():
    with child() as (pid, stat_fd):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert not pause.stopped_alone(stat_fd)
        assert pause.state(stat_fd, pid) is None
