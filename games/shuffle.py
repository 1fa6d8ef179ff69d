"""Seeded shuffles that give the same deal on every machine and every Python version.

The algorithm is specified here rather than borrowed from `random`, whose output may change between
Python releases:

- randomness: SHAKE-256 over ``b"thegame-arena/v1|" + label + b"|" + seed``, read as little-endian
  unsigned 64-bit words;
- Fisher-Yates from the end: for i = n-1 down to 1, j = (word * (i + 1)) >> 64, swap items i and j.

The bias of the multiply-shift reduction is below 2**-57, far under anything a game can show.
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
    result = list(items)
    n = len(result)
    if n < 2:
        return result
    words = random_words(seed, label, n - 1)
    for k, i in enumerate(range(n - 1, 0, -1)):
        j = (words[k] * (i + 1)) >> 64
        result[i], result[j] = result[j], result[i]
    return result


def choice_index(n: int, seed: str, label: str) -> int:
    """An index in range(n) drawn from (seed, label)."""
    return (random_words(seed, label, 1)[0] * n) >> 64
