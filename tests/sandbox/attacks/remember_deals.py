"""Attack: remember every deal, in module globals, in files under /tmp and in an extended attribute of /tmp itself, to
play its mirrored game in a duplicate match knowing the other side (the opponent's hand, both draw piles). Reports at
each new game how many games each store remembers, and its PID in the sandbox."""

import os
import sys

MEMORY = "/tmp/deals"
ATTRIBUTE = "user.deals"
remembered = []


def from_attribute():
    try:
        return len(os.getxattr("/tmp", ATTRIBUTE).split())
    except OSError:
        return 0


def new_game(info):
    on_disk = 0
    if os.path.exists(MEMORY):
        with open(MEMORY) as memory:
            on_disk = len(memory.read().split())
    print(f"remembers {len(remembered)} {on_disk} {from_attribute()} pid {os.getpid()}", file=sys.stderr)
    remembered.append(info["seed"])
    with open(MEMORY, "a") as memory:
        memory.write(info["seed"] + "\n")
    try:
        os.setxattr("/tmp", ATTRIBUTE, " ".join(remembered).encode())
    except OSError as error:  # a file system without user attributes: nothing kept there
        print(f"no attribute: {error}", file=sys.stderr)


def play(observation):
    return {"plays": []}  # an illegal turn loses the game, but keeps the bot running
