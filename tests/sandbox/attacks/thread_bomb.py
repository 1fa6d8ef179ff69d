"""Attack: start threads until something gives (the process limit, or address space for their stacks)."""

import threading

never = threading.Event()


def play(observation):
    started = 0
    error = None
    for _ in range(10_000):
        try:
            threading.Thread(target=never.wait, daemon=True).start()
        except RuntimeError as failure:
            error = str(failure)
            break
        started += 1
    return {"plays": [], "threads": started, "error": error}
