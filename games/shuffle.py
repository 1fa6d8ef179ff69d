"""Seeded shuffles that give the same deal on every machine and every Python version.

The algorithm is specified here rather than borrowed from `random`, whose output may change between
Python releases:

- randomness: SHAKE-256 over ``b"thegame-arena/v1|" + label + b"|" + seed`` (UTF-8), read as
  little-endian unsigned 64-bit words, one word per item;
- the shuffled order: the items sorted by their words (a stable sort, so the astronomically rare equal
  words keep the items' original order).

Sorting by independent uniform keys gives every order the same probability, and the sort runs in C,
which matters when a benchmark deals thousands of games a second.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

DOMAIN = b"thegame-arena/v1|"


def random_words(seed: str, label: str, count: int) -> tuple[int, ...]:
    """`count` 64-bit words derived from (seed, label)."""
    stream = hashlib.shake_256(DOMAIN + label.encode() + b"|" + seed.encode()).digest(8 * count)
    return struct.unpack(f"<{count}Q", stream)


def shuffled(items: Sequence[T], seed: str, label: str) -> list[T]:
    """A new list holding `items` in the order the (seed, label) shuffle gives."""
    keys = random_words(seed, label, len(items)) if items else ()
    order = sorted(range(len(items)), key=keys.__getitem__)
    return [items[index] for index in order]


def choice_index(n: int, seed: str, label: str) -> int:
    """An index in range(n) drawn from (seed, label): (word * n) >> 64."""
    return (random_words(seed, label, 1)[0] * n) >> 64


def derived_seed(seed: str, label: str) -> str:
    """A seed for something that must be reproducible from `seed` yet tell nothing of its deal (a bot's own
    randomness): 128 bits of the (seed, label) stream, as hex. Recovering `seed` from it would mean inverting
    SHAKE-256, and every shuffle draws on other labels, so the deal cannot be worked out from it."""
    return "".join(f"{word:016x}" for word in random_words(seed, label, 2))
