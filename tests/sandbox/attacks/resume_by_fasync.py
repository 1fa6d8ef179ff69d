"""Attack (issue 20, finding 2): continue itself during the opponent's turn. The write end of a pipe is to signal its
owner, this process, with SIGCONT once it is writable (O_ASYNC, F_SETOWN, and F_SETSIG with its command in the low 32
bits of an argument whose high word holds garbage); just before each reply a thread starts one long readv from the
full pipe into a thousand pieces of untouched (huge-page) memory. It ends inside the kernel after the harness has
stopped: the read leaves room in the pipe, the kernel sends SIGCONT, and a thread that copies memory round and round
(without the interpreter's lock, so the reply is never held up) runs on while the opponent thinks."""

import ctypes
import fcntl
import mmap
import os
import signal
import threading
import time

HUGE_PAGE = 2 << 20
REGION = 160 * HUGE_PAGE  # 320 MiB of address space
PIECES = 1024  # IOV_MAX
PIPE_BYTES = 1 << 20  # the most an unprivileged process may give a pipe
HIGH_WORD = 1 << 32
F_SETFL, F_SETOWN, F_SETSIG = 4, 8, 10
O_ASYNC = 0o20000
FCNTL = 72  # x86_64

copied = {"rounds": 0}
armed = {}
replied = threading.Event()


def _copy_round_and_round():
    libc = ctypes.CDLL(None)
    source, target = ctypes.create_string_buffer(1 << 20), ctypes.create_string_buffer(1 << 20)
    while True:
        if replied.is_set():  # only once the bot's turn is over: the CPU it wants is the opponent's
            libc.memmove(target, source, 1 << 20)
            copied["rounds"] += 1
        else:
            replied.wait()


def _fcntl(libc, fd, command, argument):
    result = libc.syscall(FCNTL, fd, ctypes.c_ulong(command | HIGH_WORD), ctypes.c_ulong(argument))
    return "done" if result >= 0 else f"denied: errno {ctypes.get_errno()}"


def _arm():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    results = {
        "F_SETOWN": _fcntl(libc, write_end, F_SETOWN, os.getpid()),
        "F_SETSIG": _fcntl(libc, write_end, F_SETSIG, signal.SIGCONT),
        "O_ASYNC": _fcntl(libc, write_end, F_SETFL, O_ASYNC),
    }
    region = mmap.mmap(-1, REGION)
    try:
        region.madvise(mmap.MADV_HUGEPAGE)
        results["MADV_HUGEPAGE"] = "done"
    except OSError as error:
        results["MADV_HUGEPAGE"] = f"denied: errno {error.errno}"
    threading.Thread(target=_copy_round_and_round, daemon=True).start()
    armed.update(read=read_end, write=write_end, region=region, results=results)


def _read(read_end, pieces, reading):
    reading.set()
    os.readv(read_end, pieces)


def play(observation):
    replied.clear()
    if not armed:
        _arm()
    region = armed["region"]
    region.madvise(mmap.MADV_DONTNEED)  # untouched again: every piece of the read faults fresh pages
    size = PIPE_BYTES // PIECES
    stride = REGION // PIECES
    os.write(armed["write"], b"x" * PIPE_BYTES)  # a full pipe
    view = memoryview(region)
    # each piece straddles a page boundary: two faults apiece, or one huge page's in five
    pieces = [view[n * stride + 4096 - size // 2 :][:size] for n in range(PIECES)]
    reading = threading.Event()
    threading.Thread(target=_read, args=(armed["read"], pieces, reading)).start()
    reading.wait()
    time.sleep(0.001)  # into the read, which goes on in the kernel past the reply and the stop
    replied.set()
    return {"plays": [], "results": armed["results"], "rounds": copied["rounds"]}
