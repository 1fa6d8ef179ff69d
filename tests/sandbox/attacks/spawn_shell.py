"""Attack: spawn a shell (subprocess, os.system, exec of /bin/sh)."""

import os
import subprocess


def play(observation):
    results = {}
    try:
        results["subprocess"] = subprocess.run(["/bin/sh", "-c", "id"], capture_output=True, timeout=2).stdout.decode()
    except Exception as error:
        results["subprocess"] = f"denied: {type(error).__name__}"
    try:
        results["system"] = os.system("id > /tmp/id.txt")
    except Exception as error:
        results["system"] = f"denied: {type(error).__name__}"
    for shell in ("/bin/sh", "/usr/bin/sh", "/bin/bash"):
        results[shell] = os.path.exists(shell)
    try:
        os.execv("/bin/sh", ["sh", "-c", "id"])
    except OSError as error:
        results["execv"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
