"""Crashes late: raises from the game's 40th turn on, so only in games that last that long."""

_legal_play = play  # noqa: F821 (greedy's, defined above this file once appended)
CRASH_TURN = 40


def play(observation):
    if observation["turn"] >= CRASH_TURN:
        raise IndexError("a list index the author never tested that far into a game")
    return _legal_play(observation)
