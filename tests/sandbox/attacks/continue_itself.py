"""Attack: have SIGCONT sent to its own process, by every call that sends signals and every kernel facility that
sends one later (a POSIX timer, a file's F_SETSIG, the death signal), as a thread racing a stop would."""

import ctypes
import os
import signal

# x86_64 system call numbers: (number, arguments), the signal SIGCONT where the call takes it
CALLS = {"tkill": (200, "tid"), "tgkill": (234, "pid", "tid"), "rt_sigqueueinfo": (129, "pid"),
         "rt_tgsigqueueinfo": (297, "pid", "tid"), "pidfd_send_signal": (424, "pidfd")}  # fmt: skip


def play(observation):
    results = {}
    try:
        os.kill(os.getpid(), signal.SIGCONT)
        results["kill"] = "sent"
    except OSError as error:
        results["kill"] = f"denied: {type(error).__name__}"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    info = ctypes.create_string_buffer(128)
    ids = {"pid": os.getpid(), "tid": ctypes.CDLL(None).gettid(), "pidfd": os.pidfd_open(os.getpid())}
    for name, (number, *targets) in CALLS.items():
        args = [ids[target] for target in targets] + [signal.SIGCONT]
        if name.startswith("rt_"):
            args.append(info)
        elif name == "pidfd_send_signal":
            args += [None, 0]
        result = libc.syscall(number, *args)
        results[name] = "sent" if result >= 0 else f"denied: errno {ctypes.get_errno()}"
    # struct sigevent: sigev_value (8 bytes), sigev_signo, sigev_notify (SIGEV_SIGNAL = 0), then padding
    event = ctypes.create_string_buffer(signal.SIGCONT.to_bytes(4, "little", signed=True).rjust(12, b"\0"), 64)
    timer = ctypes.c_int(0)
    result = libc.syscall(222, 1, event, ctypes.byref(timer))  # timer_create(CLOCK_MONOTONIC, ...)
    results["timer_create"] = "made" if result >= 0 else f"denied: errno {ctypes.get_errno()}"
    read_end, write_end = os.pipe()
    result = libc.syscall(72, read_end, 10, signal.SIGCONT)  # fcntl(fd, F_SETSIG, SIGCONT)
    results["fcntl F_SETSIG"] = "set" if result >= 0 else f"denied: errno {ctypes.get_errno()}"
    result = libc.syscall(157, 1, signal.SIGCONT, 0, 0, 0)  # prctl(PR_SET_PDEATHSIG, SIGCONT)
    results["prctl PR_SET_PDEATHSIG"] = "set" if result >= 0 else f"denied: errno {ctypes.get_errno()}"
    return {"plays": [], "results": results}
