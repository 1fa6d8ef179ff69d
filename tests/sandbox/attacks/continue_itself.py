"""Attack: have SIGCONT sent to its own process, by every call that sends signals and every kernel facility that
sends one later (a POSIX timer, a file's F_SETSIG, the death signal), as a thread racing a stop would; each also
with the signal (or command) in the low 32 bits of an argument whose high word holds garbage, which the kernel
ignores: a filter comparing all 64 bits would take it for another number."""

import ctypes
import os
import signal

HIGH_WORD = 1 << 32
# x86_64 system call numbers: (number, arguments), the signal SIGCONT where the call takes it
CALLS = {"kill": (62, "pid"), "tkill": (200, "tid"), "tgkill": (234, "pid", "tid"), "rt_sigqueueinfo": (129, "pid"),
         "rt_tgsigqueueinfo": (297, "pid", "tid"), "pidfd_send_signal": (424, "pidfd")}  # fmt: skip
F_SETSIG = 10
PR_SET_PDEATHSIG = 1


def _outcome(libc, result, success):
    return success if result >= 0 else f"denied: errno {ctypes.get_errno()}"


def play(observation):
    results = {}
    try:
        os.kill(os.getpid(), signal.SIGCONT)
        results["os.kill"] = "sent"
    except OSError as error:
        results["os.kill"] = f"denied: {type(error).__name__}"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    info = ctypes.create_string_buffer(128)
    ids = {"pid": os.getpid(), "tid": ctypes.CDLL(None).gettid(), "pidfd": os.pidfd_open(os.getpid())}
    for garbage, suffix in ((0, ""), (HIGH_WORD, " high word")):
        sigcont = ctypes.c_ulong(signal.SIGCONT | garbage)
        for name, (number, *targets) in CALLS.items():
            args = [ids[target] for target in targets] + [sigcont]
            if name.startswith("rt_"):
                args.append(info)
            elif name == "pidfd_send_signal":
                args += [None, 0]
            results[name + suffix] = _outcome(libc, libc.syscall(number, *args), "sent")
        read_end, write_end = os.pipe()
        command = ctypes.c_ulong(F_SETSIG | garbage)
        results["fcntl F_SETSIG" + suffix] = _outcome(libc, libc.syscall(72, read_end, command, sigcont), "set")
        option = ctypes.c_ulong(PR_SET_PDEATHSIG | garbage)
        results["prctl PR_SET_PDEATHSIG" + suffix] = _outcome(libc, libc.syscall(157, option, sigcont, 0, 0, 0), "set")
    # struct sigevent: sigev_value (8 bytes), sigev_signo, sigev_notify (SIGEV_SIGNAL = 0), then padding
    event = ctypes.create_string_buffer(signal.SIGCONT.to_bytes(4, "little", signed=True).rjust(12, b"\0"), 64)
    timer = ctypes.c_int(0)
    result = libc.syscall(222, 1, event, ctypes.byref(timer))  # timer_create(CLOCK_MONOTONIC, ...)
    results["timer_create"] = _outcome(libc, result, "made")
    return {"plays": [], "results": results}
