"""Tests run on simulated results with a known truth: how the SPRT is checked against its theory.

A true distribution gives each sample's class; `simulate` draws samples in batches, as a real test plays them,
and returns the verdict and the samples it took.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.sprt.counts import Counts
from bots.sprt.distribution import Distribution
from bots.sprt.gsprt import SPRT, Verdict


def pair_distribution(win: float, draw: float = 0.0) -> Distribution:
    """The pentanomial distribution of a pair of independent games, each won with `win` and drawn with `draw`."""
    loss = 1 - win - draw
    if min(win, draw, loss) < 0:
        raise ValueError("win and draw are probabilities that sum to at most 1")
    game = (loss, draw, win)  # by score in halves: 0, 1, 2
    probs = [0.0] * 5
    for first, p in enumerate(game):
        for second, q in enumerate(game):
            probs[first + second] += p * q
    return Distribution((0.0, 0.25, 0.5, 0.75, 1.0), tuple(probs))


def simulate(
    test: SPRT, true: Sequence[float], batch: int, rng: random.Random, max_samples: int = 10**7
) -> tuple[Verdict | None, int]:
    """(verdict, samples) of one test whose samples fall in cell i with probability true[i]."""
    cells = [0] * len(true)
    indices = range(len(true))
    samples = 0
    while samples < max_samples:
        size = min(batch, max_samples - samples)
        for cell in rng.choices(indices, true, k=size):
            cells[cell] += 1
        samples += size
        verdict = test.verdict(test.llr(Counts.of(cells)))
        if verdict is not None:
            return verdict, samples
    return None, samples
