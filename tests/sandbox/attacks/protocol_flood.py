"""Attack: write straight to every open file descriptor, the protocol pipe included, without a newline."""

import os


def play(observation):
    for fd in range(3, 64):
        try:
            os.write(fd, b"{" * 200_000)
        except OSError:
            pass
    return []
