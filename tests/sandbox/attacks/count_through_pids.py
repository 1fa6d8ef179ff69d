"""Attack: carry a number from a duplicate match's first half to its mirrored half through the sandbox's PID counter,
which no harness's end resets: the first half's bot starts (and ends) that many threads, each taking the next PID of
the sandbox, and the mirrored half's new harness reads how far its own PID has moved on. A number a deal long would
tell the other side of it. Reports at each new game its PID in the sandbox and the number it sent."""

import os
import sys
import threading

games = 0


def new_game(info):
    global games
    number = int(info["seed"][:2], 16) % 32 + 1 if games == 0 else 0  # a harness's first game sends
    for _ in range(number):
        thread = threading.Thread(target=int)
        thread.start()
        thread.join()
    print(f"pid {os.getpid()} sent {number}", file=sys.stderr)
    games += 1


def play(observation):
    return {"plays": []}  # an illegal turn loses the game, but keeps the bot running
