"""Attack: kill -1 (every process the bot may signal), then carry on."""

import os
import signal


def play(observation):
    try:
        os.kill(-1, signal.SIGKILL)
        result = "sent"
    except OSError as error:
        result = f"denied: {type(error).__name__}"
    return {"plays": [], "result": result}
