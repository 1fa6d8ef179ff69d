"""What a test is expected to do when the true result distribution is known: its pass probability and its
expected number of samples (pairs, or deals for the co-op games) before a verdict.

Once the counts are many, the GSPRT's LLR moves like a random walk whose step, for a sample in cell i, is
j_i = ln p1_i - ln p0_i, with p0 and p1 the fits under H0 and H1 to the true distribution p: drift
mu = sum_i p_i j_i and variance sigma^2 = sum_i p_i (j_i - mu)^2 per sample (fishtest's `LLR_drift_variance`).
Wald's Brownian approximation with the bounds a < 0 < b then gives (fishtest's sprta.pdf)

    P(H1) = (1 - exp(-g a)) / (exp(-g b) - exp(-g a)),  g = 2 mu / sigma^2,
    E[N] = (P(H1) b + (1 - P(H1)) a) / mu.

A walk checked every `batch` samples steps over a bound rather than stopping on it: Siegmund's corrected
diffusion moves each bound outwards by the expected overshoot, 0.5826 * sigma * sqrt(batch)
(-zeta(1/2) / sqrt(2 pi)), which keeps the estimates honest for large steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bots.sprt.distribution import Distribution
from bots.sprt.gsprt import SPRT, jumps

OVERSHOOT_PER_SIGMA = 0.5825971579390106  # -zeta(1/2) / sqrt(2 pi)


@dataclass(frozen=True)
class Expectation:
    drift: float  # LLR per sample
    variance: float  # of the LLR per sample
    pass_probability: float  # P(H1 accepted)
    samples: float  # expected samples to a verdict


def llr_drift_variance(test: SPRT, true: Distribution, kind: str) -> tuple[float, float]:
    """The mean and variance of one sample's LLR step when results follow `true`."""
    true = true.support()  # an impossible cell is never sampled, and its fitted probability is 0
    if len(true.values) < 2:
        raise ValueError(
            "the true distribution has a single outcome: a test then sees one kind of sample only, and how long it "
            "takes depends on the regularisation of the empty cells, not on this theory"
        )
    steps = jumps(*test.fits(true, kind))
    drift = sum(p * j for p, j in zip(true.probs, steps, strict=True))
    variance = sum(p * (j - drift) ** 2 for p, j in zip(true.probs, steps, strict=True))
    return drift, variance


def expectation(test: SPRT, true: Distribution, kind: str, batch: int = 1, overshoot: bool = True) -> Expectation:
    """Pass probability and expected samples to a verdict, the LLR checked every `batch` samples."""
    drift, variance = llr_drift_variance(test, true, kind)
    shift = OVERSHOOT_PER_SIGMA * math.sqrt(variance * batch) if overshoot else 0.0
    lower, upper = test.lower - shift, test.upper + shift
    probability, samples = brownian_exit(drift, variance, lower, upper)
    return Expectation(drift, variance, probability, samples)


def brownian_exit(drift: float, variance: float, lower: float, upper: float) -> tuple[float, float]:
    """(P(exit at upper), E[exit time]) of a Brownian motion from 0 between lower < 0 < upper."""
    g = 2 * drift / variance
    if abs(g * (upper - lower)) < 1e-6:  # driftless: the limits of both formulas
        return -lower / (upper - lower), -lower * upper / variance
    # P = (1 - e^{-g a}) / (e^{-g b} - e^{-g a}), with a = lower, b = upper, multiplied through so that no
    # exponent is positive (no overflow) and written with expm1 (no cancellation)
    if g > 0:
        probability = math.expm1(g * lower) / math.expm1(g * (lower - upper))
    else:
        probability = math.expm1(-g * lower) * math.exp(g * upper) / math.expm1(g * (upper - lower))
    probability = min(1.0, max(0.0, probability))
    return probability, (probability * upper + (1 - probability) * lower) / drift
