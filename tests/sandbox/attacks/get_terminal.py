"""Attack: open a pseudo-terminal and make it the harness's controlling terminal (it leads its session), so that a
hang-up of the terminal, when its master side closes, would continue the stopped bot."""

import os


def play(observation):
    results = {}
    results["/dev"] = sorted(os.listdir("/dev"))
    for path in ("/dev/ptmx", "/dev/pts/ptmx", "/dev/tty"):
        try:
            os.close(os.open(path, os.O_RDWR))
            results[path] = "opened"
        except OSError as error:
            results[path] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
