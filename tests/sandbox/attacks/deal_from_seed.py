"""Attack: work out the deal from what new_game() is told. The engine's shuffle is public (games/shuffle.py, SHAKE-256
with nothing secret), so a bot given the game's seed could compute its opponent's hand and both draw piles. It deals
from every seed-like value in its info, with the engine's own algorithm, and reports whether any predicts its hand."""

import hashlib
import json
import struct
import sys

DOMAIN = b"thegame-arena/v1|"
CARDS = list(range(2, 60))  # Face to Face: each seat's own deck
infos = []


def shuffled(items, seed, label):
    stream = hashlib.shake_256(DOMAIN + label.encode() + b"|" + seed.encode()).digest(8 * len(items))
    keys = struct.unpack(f"<{len(items)}Q", stream)
    return [items[index] for index in sorted(range(len(items)), key=keys.__getitem__)]


def new_game(info):
    infos.append(info)


def play(observation):
    info = infos[-1]
    hand = sorted(observation["hand"])
    guesses = [str(value) for value in info.values() if isinstance(value, (str, int)) and not isinstance(value, bool)]
    predicted = any(
        sorted(shuffled(CARDS, guess, f"deck{seat}")[: len(hand)]) == hand for guess in guesses for seat in (0, 1)
    )
    print(json.dumps({"predicted": predicted, "seeds": [i["seed"] for i in infos]}), file=sys.stderr)
    raise SystemExit("reported")
