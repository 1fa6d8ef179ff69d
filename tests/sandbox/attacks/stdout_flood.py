"""Attack: flood stdout with lines (print) and without newlines, then answer correctly.

The output must go to the bot's capped log, never into the protocol: the turn still arrives intact.
"""

import sys


def play(observation):
    for index in range(200_000):
        print("flood line", index)
    sys.stdout.write("z" * 5_000_000)
    sys.stdout.flush()
    return {"plays": [], "flooded": True}
