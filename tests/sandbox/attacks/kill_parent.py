"""Attack: kill the parent, PID 1 and the runner's PID (which the test tells it)."""

import os
import signal


def play(observation):
    results = {}
    for name, pid in (("ppid", os.getppid()), ("init", 1), ("runner", observation["attack"]["runner_pid"])):
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
            try:
                os.kill(pid, sig)
                results[f"{name}/{sig.name}"] = "sent"
            except OSError as error:
                results[f"{name}/{sig.name}"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
