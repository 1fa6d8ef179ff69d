"""A greedy bot that fails in some games: it raises in deals ending in 3 and oversleeps in deals ending in 7.

Shipped in a zip beside the house greedy bot (`import greedy`), so it also exercises zip bots and
module globals that persist across the games of a match.
"""

import time

import greedy

deal = 0


def new_game(info):
    global deal
    deal = int(str(info["seed"]).rsplit(":", 1)[-1])
    print("new game", info["seed"])


def play(observation):
    if deal % 10 == 3:
        raise RuntimeError(f"planned failure in deal {deal}")
    if deal % 10 == 7:
        time.sleep(5)
    return greedy.play(observation)
