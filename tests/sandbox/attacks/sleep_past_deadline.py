"""Attack: sleep far past the turn's deadline, hoping the runner waits."""

import time


def play(observation):
    time.sleep(60)
    return []
