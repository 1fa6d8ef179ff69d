"""Attack: allocate memory until the machine swaps."""


def play(observation):
    hoard = []
    while True:
        hoard.append(bytearray(16 * 1024 * 1024))
