"""Slow in long games: thinks THINK_SECONDS a turn from the game's 40th turn on (a search that grows with the
game); at 1 s a turn and a 10 s bank it runs out of time on its fifth such turn."""

import time

_legal_play = play  # noqa: F821 (greedy's, defined above this file once appended)
SLOW_TURN = 40
THINK_SECONDS = 3.0


def play(observation):
    if observation["turn"] >= SLOW_TURN:
        time.sleep(THINK_SECONDS)
    return _legal_play(observation)
