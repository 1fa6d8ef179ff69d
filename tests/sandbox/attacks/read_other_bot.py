"""Attack: read another bot's files, at the host path the test tells it and at the sandbox's own paths."""

import os


def play(observation):
    results = {}
    for path in observation["attack"]["paths"]:
        try:
            with open(path) as handle:
                results[path] = handle.read()
        except OSError as error:
            results[path] = f"denied: {type(error).__name__}"
    results["own /bot"] = sorted(os.listdir("/bot"))
    return {"plays": [], "results": results}
