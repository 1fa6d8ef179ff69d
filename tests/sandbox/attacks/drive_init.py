"""Attack: take hold of PID 1 (bwrap's child, held before its exec, without a seccomp filter of its own): trace it,
read or write its memory, take its descriptors, signal it; then check it still holds the sandbox up."""

import ctypes
import os
import signal

PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206
SYS_PROCESS_VM_READV, SYS_PROCESS_VM_WRITEV, SYS_PIDFD_GETFD = 310, 311, 438


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def play(observation):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long

    def outcome(result):
        return "allowed" if result >= 0 else f"denied: errno {ctypes.get_errno()}"

    results = {
        "attach": outcome(libc.ptrace(PTRACE_ATTACH, 1, None, None)),
        "seize": outcome(libc.ptrace(PTRACE_SEIZE, 1, None, None)),
        "proc": "present" if os.path.exists("/proc/1") else "absent",
    }
    buffer = ctypes.create_string_buffer(64)
    local, remote = IOVec(ctypes.addressof(buffer), 64), IOVec(0x400000, 64)
    for name, number in (("vm_readv", SYS_PROCESS_VM_READV), ("vm_writev", SYS_PROCESS_VM_WRITEV)):
        results[name] = outcome(libc.syscall(number, 1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
    try:
        pidfd = os.pidfd_open(1)
        results["pidfd_getfd"] = outcome(libc.syscall(SYS_PIDFD_GETFD, pidfd, 0, 0))
        for signum in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
            signal.pidfd_send_signal(pidfd, signum)  # ignored: PID 1 has no handlers, and this is its namespace
        results["signals"] = "sent"
    except OSError as error:
        results["pidfd_getfd"] = results["signals"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results, "me": os.getpid()}
