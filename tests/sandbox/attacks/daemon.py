"""Attack: leave something running after the match: a double-forked daemon ignoring SIGTERM, and
a thread that keeps working. Nothing of either may outlive the match."""

import os
import signal
import threading
import time


def linger():
    while True:
        with open("/tmp/heartbeat", "w") as handle:
            handle.write(str(time.time()))
        time.sleep(0.01)


def play(observation):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    results = {}
    try:
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        results["daemon"] = "forked"
    except OSError as error:
        results["daemon"] = f"denied: {type(error).__name__}"
    threading.Thread(target=linger, daemon=False).start()
    results["thread"] = "started"
    return {"plays": [], "results": results}
