"""Attack at import time: exit the interpreter before the handshake."""

import os

os._exit(3)


def play(observation):
    return []
