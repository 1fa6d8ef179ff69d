"""Attack: write outside the scratch /tmp: the root, /dev, the runtime, the bot's files, a host path."""

import os
import sys


def play(observation):
    results = {}
    targets = [
        "/pwned",
        "/dev/pwned",
        "/dev/shm/pwned",
        "/bot/pwned",
        "/bot/bot.py",
        "/harness/pwned",
        os.path.join(os.path.dirname(sys.executable), "pwned"),
        os.path.join(sys.prefix, "lib", "pwned"),
        observation["attack"]["host_path"],
    ]
    for target in targets:
        try:
            with open(target, "a") as handle:
                handle.write("pwned")
            results[target] = "written"
        except OSError as error:
            results[target] = f"denied: {type(error).__name__}"
    try:
        with open("/tmp/scratch.txt", "w") as handle:
            handle.write("private scratch")
        results["/tmp/scratch.txt"] = "written"
    except OSError as error:
        results["/tmp/scratch.txt"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
