"""Attack: remember every deal, in module globals and in /tmp, to play its mirrored game in a duplicate match knowing
the other side (the opponent's hand, both draw piles). Reports at each new game how many games it remembers."""

import os
import sys

MEMORY = "/tmp/deals"
remembered = []


def new_game(info):
    on_disk = 0
    if os.path.exists(MEMORY):
        with open(MEMORY) as memory:
            on_disk = len(memory.read().split())
    print(f"remembers {len(remembered)} in globals {on_disk} in /tmp", file=sys.stderr)
    remembered.append(info["seed"])
    with open(MEMORY, "a") as memory:
        memory.write(info["seed"] + "\n")


def play(observation):
    return {"plays": []}  # an illegal turn loses the game, but keeps the bot running
