"""A greedy bot that fails in some games: it raises where its seed (hex) is 3 modulo 10 and oversleeps where it is 7.

Shipped in a zip beside the house greedy bot (`import greedy`), so it also exercises zip bots and
module globals that persist across the games of a match.
"""

import time

import greedy

deal = 0


def new_game(info):
    global deal
    deal = int(info["seed"], 16)  # the bot's own seed for the game: a tenth of the games each way
    print("new game", info["seed"])


def play(observation):
    if deal % 10 == 3:
        raise RuntimeError(f"planned failure in the game of seed {deal:x}")
    if deal % 10 == 7:
        time.sleep(5)
    return greedy.play(observation)
