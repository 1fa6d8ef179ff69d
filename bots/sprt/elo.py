"""Elo with its 95% interval, LOS and normalized Elo from the counts, as fishtest reports them.

With the regularised counts read as a distribution of the per-game score (`bots.sprt.distribution`): mean mu,
variance var of one sample (a pair's mean score, or one deal), N samples, z = 1.959964 (the 97.5% normal quantile):
- score interval: mu -+ z sqrt(var / N);
- Elo: -400 log10(1/mu - 1), each score clamped to [0.001, 0.999]; the interval is the Elo of the score interval's
  ends, and `error` is half its width (fishtest's "+-");
- LOS (likelihood of superiority): Phi((mu - 1/2) / sqrt(var / N));
- normalized Elo: (800 / ln 10) * t / sqrt(2) for pairs, (800 / ln 10) * t for single games, with the t-value
  t = (mu - 1/2) / sqrt(var); its interval is t -+ z sqrt(var_t / N) with
  var_t = max(0, 1 - t * skewness + t^2 (excess kurtosis + 2) / 4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from bots.sprt.counts import PENTANOMIAL, Counts
from bots.sprt.distribution import empirical
from bots.sprt.gsprt import NELO_PER_T, logistic_elo

Z_975 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class EloEstimate:
    score: float  # NEW's expected score per game
    elo: float
    elo_low: float
    elo_high: float
    los: float  # probability that NEW is the stronger, 0..1
    nelo: float
    nelo_low: float
    nelo_high: float

    @property
    def error(self) -> float:
        """Half the width of the Elo interval (fishtest's +-)."""
        return (self.elo_high - self.elo_low) / 2

    @property
    def nelo_error(self) -> float:
        return (self.nelo_high - self.nelo_low) / 2


def normal_cdf(x: float) -> float:
    """Phi(x), through erfc so that far tails keep their precision (1 - erf would round them to 0)."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def estimate(counts: Counts) -> EloEstimate:
    total, observed = empirical(counts.cells)
    mu, var, skewness, exkurt = observed.moments()
    spread = math.sqrt(var / total)
    score_low, score_high = mu - Z_975 * spread, mu + Z_975 * spread
    t = (mu - 0.5) / math.sqrt(var)
    t_spread = Z_975 * math.sqrt(max(0.0, 1 - t * skewness + t * t * (exkurt + 2) / 4) / total)
    per_t = NELO_PER_T / (math.sqrt(2) if counts.kind == PENTANOMIAL else 1.0)
    return EloEstimate(
        score=mu,
        elo=logistic_elo(mu),
        elo_low=logistic_elo(score_low),
        elo_high=logistic_elo(score_high),
        los=normal_cdf((mu - 0.5) / spread),
        nelo=per_t * t,
        nelo_low=per_t * (t - t_spread),
        nelo_high=per_t * (t + t_spread),
    )
