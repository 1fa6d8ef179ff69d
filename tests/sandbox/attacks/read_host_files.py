"""Attack: read host files named by the test (canary, settings, database), /etc/passwd, host /proc."""

import os


def play(observation):
    found = {}
    for path in observation["attack"]["paths"] + ["/etc/passwd", "/etc/shadow", "/proc/1/environ", "/root"]:
        try:
            if os.path.isdir(path):
                found[path] = os.listdir(path)
            else:
                with open(path, "rb") as handle:
                    found[path] = handle.read(4096).decode("latin-1")
        except OSError as error:
            found[path] = f"denied: {type(error).__name__}"
    found["listing /"] = sorted(os.listdir("/"))
    found["environ"] = dict(os.environ)
    return {"plays": [], "found": found}
