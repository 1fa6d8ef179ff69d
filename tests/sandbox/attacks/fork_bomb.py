"""Attack: fork until the machine chokes (os.fork, multiprocessing, posix_spawn)."""

import os


def play(observation):
    results = {"forks": 0}
    for _ in range(1000):
        try:
            pid = os.fork()
        except OSError as error:
            results["error"] = f"{type(error).__name__} {error.errno}"
            break
        if pid == 0:
            while True:
                os.fork()
        results["forks"] += 1
    try:
        os.posix_spawn("/bin/sh", ["sh"], {})
        results["spawn"] = "spawned"
    except OSError as error:
        results["spawn"] = f"denied: {type(error).__name__}"
    try:
        import multiprocessing

        process = multiprocessing.Process(target=print)
        process.start()
        results["multiprocessing"] = "started"
    except Exception as error:
        results["multiprocessing"] = f"denied: {type(error).__name__}"
    return {"plays": [], "results": results}
