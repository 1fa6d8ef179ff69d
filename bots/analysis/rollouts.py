"""Estimating what candidate turns are worth, by determinized rollouts with common random numbers.

For each sample k, the cards the mover cannot see are dealt once (hidden.py, from the seed and k); every candidate
turn is played on its own copy of that same guess, the expert then plays every seat for `horizon` turns, and the
position reached is valued (leaf.py). Because all candidates meet the same guesses, the difference between two
candidates varies much less from sample to sample than either value does: the error of a drop (`paired_stderr`) is
usually a fraction of the values' own errors.

Samples are drawn in batches until every candidate's value has a standard error within `target` (and its expected
cards left within `cards_target`), between `min_samples` and `max_samples`. The stopping rule
looks only at the samples, so the same seed gives the same samples and the same stop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bots.analysis.hidden import hidden_layout
from bots.analysis.leaf import leaf_value
from bots.analysis.policy import expert_turn_json
from games import GameState, Turn

BATCH = 4


# Turns the expert plays after the candidate before the leaf model values the position: the next seat's turn (the
# opponent's reply in Face to Face). Two turns find planted mistakes no better and cost twice the time.
HORIZON = 1


@dataclass(frozen=True)
class Precision:
    """How hard to look: samples per turn, how far each rollout plays, and the errors that are good enough.

    Sampling stops once every candidate's win probability has a standard error within `target` and the drop between
    any two within `drop_target`, and the expected cards left within `cards_target` and their rise within
    `cards_drop_target`, or at `max_samples`."""

    max_samples: int = 256
    min_samples: int = 12
    horizon: int = HORIZON  # turns the expert plays after the candidate
    target: float = 0.025
    drop_target: float = 0.02
    cards_target: float = 1.0
    cards_drop_target: float = 0.5

    def __post_init__(self) -> None:
        if self.max_samples < 2:
            raise ValueError(f"at least 2 rollouts are needed for a standard error, not {self.max_samples}")
        if self.horizon < 0:
            raise ValueError(f"the horizon is a number of turns from 0, not {self.horizon}")


DEFAULT_PRECISION = Precision()


@dataclass
class Samples:
    """The rollouts' values, one list per candidate, sample k of every list from the same guess: the mover's (team's)
    win and its cards left at the end."""

    wins: list[list[float]]
    cards: list[list[float]]
    count: int = 0

    def win(self, candidate: int) -> float:
        return _mean(self.wins[candidate])

    def win_stderr(self, candidate: int) -> float:
        return _stderr(self.wins[candidate])

    def cards_left(self, candidate: int) -> float:
        return _mean(self.cards[candidate])

    def cards_stderr(self, candidate: int) -> float:
        return _stderr(self.cards[candidate])

    def win_drop_stderr(self, better: int, worse: int) -> float:
        """Standard error of win(better) - win(worse), from the paired samples."""
        return _stderr([a - b for a, b in zip(self.wins[better], self.wins[worse], strict=True)])

    def cards_rise_stderr(self, better: int, worse: int) -> float:
        """Standard error of cards_left(worse) - cards_left(better), from the paired samples."""
        return _stderr([b - a for a, b in zip(self.cards[better], self.cards[worse], strict=True)])


def estimate(
    state: GameState, mover: int, candidates: Sequence[Turn], seed: str, precision: Precision = DEFAULT_PRECISION
) -> Samples:
    """Sample the value of each candidate turn for `mover` (to move in `state`), with common random numbers."""
    samples = Samples([[] for _ in candidates], [[] for _ in candidates])
    turns = [turn.to_json() for turn in candidates]
    horizon = precision.horizon
    while samples.count < precision.max_samples:
        for _ in range(min(BATCH, precision.max_samples - samples.count)):
            _sample(state, mover, turns, f"{seed}:{samples.count}", horizon, samples)
            samples.count += 1
        if samples.count >= precision.min_samples and _precise_enough(samples, precision):
            break
    return samples


def _sample(state: GameState, mover: int, turns: list, seed: str, horizon: int, samples: Samples) -> None:
    hands, draw_piles = hidden_layout(state, mover, seed)
    for index, turn in enumerate(turns):
        guess = state.with_hidden_cards(hands, draw_piles)
        guess.push(turn)
        for _ in range(horizon):
            if guess.outcome is not None:
                break
            guess.push(expert_turn_json(guess))
        value = leaf_value(guess, mover)
        samples.wins[index].append(value.win)
        samples.cards[index].append(value.cards)


def _precise_enough(samples: Samples, precision: Precision) -> bool:
    candidates = range(len(samples.wins))
    for candidate in candidates:
        if samples.win_stderr(candidate) > precision.target:
            return False
        if samples.cards_stderr(candidate) > precision.cards_target:
            return False
    for first in candidates:
        for second in candidates[first + 1 :]:
            if samples.win_drop_stderr(first, second) > precision.drop_target:
                return False
            if samples.cards_rise_stderr(first, second) > precision.cards_drop_target:
                return False
    return True


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _stderr(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return math.inf
    mean = math.fsum(values) / n
    variance = math.fsum((value - mean) ** 2 for value in values) / (n - 1)
    return math.sqrt(variance / n)
