"""Attack (the filter's own test): make system calls the sandbox's filter refuses, without ever running one.

Each probe runs in a thread of its own that first installs a second filter of its own, for the probed call numbers
only: SECCOMP_RET_TRACE, which with no tracer attached makes the kernel answer ENOSYS without running the call.
The kernel applies the stronger of two filters' answers, and the sandbox's refusal (SECCOMP_RET_ERRNO) is stronger
than a trace: so a probe comes back with the sandbox's errno where a rule refuses it, and with ENOSYS where the call
would have gone through. Nothing probed runs either way, so a missing rule shows as "passed", not as a reboot.
The host's test imports `probe` as well, to run the probes under filters with one rule taken out.
"""

import ctypes
import errno
import threading

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_TRACE = 0x7FF00000
SECCOMP_RET_ALLOW = 0x7FFF0000
BPF_LD_W_ABS = 0x20  # load the 32-bit word at k of struct seccomp_data (0: the call's number)
BPF_JEQ_K = 0x15
BPF_RET_K = 0x06


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _trace_program(numbers):
    """BPF: SECCOMP_RET_TRACE for the given call numbers, SECCOMP_RET_ALLOW for every other."""
    numbers = sorted(set(numbers))
    code = [(BPF_LD_W_ABS, 0, 0, 0)]
    code += [(BPF_JEQ_K, len(numbers) - index, 0, number) for index, number in enumerate(numbers)]
    code += [(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW), (BPF_RET_K, 0, 0, SECCOMP_RET_TRACE)]
    return b"".join(bytes(_Instruction(*instruction)) for instruction in code)


def _install(libc, program):
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.addressof(buffer))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "installing a filter")


def _outcome(libc, number, arguments, traced):
    result = libc.syscall(number, *(ctypes.c_ulong(value & 0xFFFFFFFFFFFFFFFF) for value in arguments))
    if result >= 0:
        return "ran"
    code = ctypes.get_errno()
    return "passed" if traced and code == errno.ENOSYS else f"refused: errno {code}"


def probe(probes, filters=(), traced=True):
    """{label: outcome} for probes [label, number, [arguments]], made in a new thread under `filters` (BPF programs,
    installed in that thread only) and, if `traced`, the trace filter over the probed numbers. An outcome is "passed"
    (the call would have run), "refused: errno N", or, untraced, "ran" (it did run, and succeeded; untraced, an error
    the call itself gave is "refused" too)."""
    results = {}

    def run():
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # this thread's only: what a filter of one's own needs
        for program in filters:
            _install(libc, program)
        if traced:
            _install(libc, _trace_program(number for _, number, _ in probes))
        for label, number, arguments in probes:
            results[label] = _outcome(libc, number, list(arguments) + [0] * (6 - len(arguments)), traced)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return results


def play(observation):
    attack = observation["attack"]
    return {"plays": [], "results": probe(attack["probes"], traced=attack.get("traced", True))}
