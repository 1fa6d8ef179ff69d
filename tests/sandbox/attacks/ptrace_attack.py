"""Attack: ptrace PID 1 and the bot's own parent, and read other processes' memory."""

import ctypes

PTRACE_TRACEME, PTRACE_ATTACH = 0, 16


def play(observation):
    libc = ctypes.CDLL(None, use_errno=True)
    results = {}
    for name, request, pid in (
        ("traceme", PTRACE_TRACEME, 0),
        ("attach-init", PTRACE_ATTACH, 1),
        ("attach-runner", PTRACE_ATTACH, observation["attack"]["runner_pid"]),
    ):
        result = libc.ptrace(request, pid, None, None)
        results[name] = "allowed" if result == 0 else f"denied: errno {ctypes.get_errno()}"
    try:
        with open(f"/proc/{observation['attack']['runner_pid']}/mem", "rb") as handle:
            results["proc-mem"] = handle.read(16).hex()
    except OSError as error:
        results["proc-mem"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
