"""Attack: kill the parent, PID 1 and the runner's PID (which the test tells it)."""

import os
import signal


def play(observation):
    results = {}
    parent = os.getppid()  # 0 when the parent is outside the PID namespace: kill(0) would be its own group
    results["ppid"] = "invisible" if parent == 0 else "visible"
    for name, pid in (("ppid", parent or None), ("init", 1), ("runner", observation["attack"]["runner_pid"])):
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
            if pid is None:
                continue
            try:
                os.kill(pid, sig)
                results[f"{name}/{sig.name}"] = "sent"
            except OSError as error:
                results[f"{name}/{sig.name}"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
