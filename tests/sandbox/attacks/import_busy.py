"""Attack at import time: never finish importing."""

while True:
    pass


def play(observation):
    return []
