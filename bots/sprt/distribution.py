"""Discrete score distributions and the maximum-likelihood fits of the generalized SPRT.

A count vector of k cells (k = 5 pentanomial, 3 trinomial) is read as a distribution of the per-game score:
cell i has the value i/(k-1) (a pair's score divided by 2), so every value lies in [0, 1] and the mean is the
expected score of one game. Empty cells get the count 1e-3 first (fishtest's regularisation), so every
probability is positive and every logarithm finite; N is then the sum of the regularised counts.

The fits follow Michel Van den Bergh's notes, as fishtest computes them:
- `fit_mean`: the distribution closest to the observed one (maximum likelihood) whose mean is s
  ("Support of the MLE for multinomial distributions", Proposition 1.1): p_i = p^_i / (1 + x (a_i - s)),
  x the root of sum_i p^_i (a_i - s) / (1 + x (a_i - s)) = 0;
- `fit_t_value`: the one whose t-value (mu - ref) / sigma is t ("Normalized Elo, practical", section 4.1):
  the same form with a_i - s replaced by a_i - ref - t sigma (1 + ((mu - a_i)/sigma)^2) / 2, iterated from
  the uniform distribution until the probabilities stop moving.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

REGULARISATION = 1e-3  # the count given to an empty cell
FIT_TOLERANCE = 1e-12  # the t-value fit stops when no probability moves by more than this
FIT_ROUNDS = 100


class FitError(ValueError):
    """No distribution on these values reaches the asked mean or t-value (a bound too far out)."""


@dataclass(frozen=True)
class Distribution:
    values: tuple[float, ...]
    probs: tuple[float, ...]

    @property
    def mean(self) -> float:
        return sum(p * a for a, p in zip(self.values, self.probs, strict=True))

    @property
    def variance(self) -> float:
        mu = self.mean
        return sum(p * (a - mu) ** 2 for a, p in zip(self.values, self.probs, strict=True))

    def support(self) -> Distribution:
        """The same distribution without its impossible values."""
        kept = [(a, p) for a, p in zip(self.values, self.probs, strict=True) if p > 0]
        return Distribution(tuple(a for a, _ in kept), tuple(p for _, p in kept))

    def moments(self) -> tuple[float, float, float, float]:
        """Mean, variance, skewness and excess kurtosis."""
        mu, var = self.mean, self.variance
        third = sum(p * (a - mu) ** 3 for a, p in zip(self.values, self.probs, strict=True))
        fourth = sum(p * (a - mu) ** 4 for a, p in zip(self.values, self.probs, strict=True))
        return mu, var, third / var**1.5, fourth / var**2 - 3


def regularised(cells: Sequence[float]) -> list[float]:
    return [cell if cell > 0 else REGULARISATION for cell in cells]


def empirical(cells: Sequence[float]) -> tuple[float, Distribution]:
    """(N, the observed distribution) of regularised counts, values i/(k-1) for cell i of k."""
    counts = regularised(cells)
    total = sum(counts)
    last = len(counts) - 1
    return total, Distribution(tuple(i / last for i in range(len(counts))), tuple(c / total for c in counts))


def solve_secular(probs: Sequence[float], shifts: Sequence[float]) -> float:
    """The root x of f(x) = sum_i p_i c_i / (1 + x c_i) with every 1 + x c_i > 0.

    f falls strictly from +inf to -inf on (-1/max c, -1/min c) when the c_i take both signs, so a Newton
    step guarded by bisection finds the one root to machine precision.
    """
    low_c, high_c = min(shifts), max(shifts)
    if not low_c < 0 < high_c:
        raise FitError("the asked mean or t-value lies outside the possible scores")
    low, high = -1 / high_c, -1 / low_c
    x = 0.0
    for _ in range(200):
        f = derivative = 0.0
        for p, c in zip(probs, shifts, strict=True):
            term = c / (1 + x * c)
            f += p * term
            derivative -= p * term * term
        if f == 0:
            return x
        if f > 0:
            low = x
        else:
            high = x
        newton = f / derivative
        if abs(newton) <= 1e-14 * max(1.0, abs(x)):
            return x - newton
        step = x - newton
        x = step if low < step < high else (low + high) / 2
    return x


def fit_mean(observed: Distribution, mean: float) -> Distribution:
    """The maximum-likelihood distribution on the observed values whose mean is `mean`."""
    shifts = [a - mean for a in observed.values]
    x = solve_secular(observed.probs, shifts)
    probs = tuple(p / (1 + x * c) for p, c in zip(observed.probs, shifts, strict=True))
    return Distribution(observed.values, _normalised(probs))


def fit_t_value(observed: Distribution, reference: float, t_value: float) -> Distribution:
    """The maximum-likelihood distribution on the observed values whose (mean - reference) / sigma is `t_value`.

    The iteration starts from the uniform distribution, as fishtest's does. For a far bound and lopsided
    counts that start can leave every shift on one side of 0 (fishtest then stops with an assertion); the
    iteration is then started again from the observed distribution, which reaches the same fixed point."""
    n = len(observed.values)
    try:
        return _iterate_t_value(observed, reference, t_value, Distribution(observed.values, (1 / n,) * n))
    except FitError:
        return _iterate_t_value(observed, reference, t_value, observed)


def _iterate_t_value(observed: Distribution, reference: float, t_value: float, start: Distribution) -> Distribution:
    fitted = start
    for _ in range(FIT_ROUNDS):
        mu, sigma = fitted.mean, math.sqrt(fitted.variance)
        shifts = [a - reference - t_value * sigma * (1 + ((mu - a) / sigma) ** 2) / 2 for a in observed.values]
        x = solve_secular(observed.probs, shifts)
        probs = _normalised(tuple(p / (1 + x * c) for p, c in zip(observed.probs, shifts, strict=True)))
        moved = max(abs(new - old) for new, old in zip(probs, fitted.probs, strict=True))
        fitted = Distribution(observed.values, probs)
        if moved < FIT_TOLERANCE:
            break
    reached = (fitted.mean - reference) / math.sqrt(fitted.variance)
    if abs(reached - t_value) > 1e-6:
        raise FitError(f"no distribution on these scores has the t-value {t_value:.6g} (closest {reached:.6g})")
    return fitted


def _normalised(probs: tuple[float, ...]) -> tuple[float, ...]:
    """Divide out the rounding left in a fit (its probabilities sum to 1 up to ~1e-15)."""
    total = sum(probs)
    return tuple(p / total for p in probs)
