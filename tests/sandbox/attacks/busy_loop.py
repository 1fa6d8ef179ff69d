"""Attack: never answer, burning CPU."""


def play(observation):
    while True:
        pass
