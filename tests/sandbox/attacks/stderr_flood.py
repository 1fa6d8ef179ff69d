"""Attack: flood stderr (10 MB, no newline), then answer correctly."""

import os


def play(observation):
    chunk = b"e" * 65536
    for _ in range(160):
        os.write(2, chunk)
    return {"plays": [], "flooded": True}
