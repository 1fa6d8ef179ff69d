"""The generalized sequential probability ratio test (GSPRT) on pentanomial or trinomial counts, as fishtest runs it.

H0: the Elo difference is elo0; H1: it is elo1. For each hypothesis the maximum-likelihood distribution
satisfying it is fitted to the observed one (`bots.sprt.distribution`), and

    LLR = N * sum_i p^_i (ln p1_i - ln p0_i)

over the cells (N and p^ from the regularised counts). The test accepts H1 once LLR >= ln((1 - beta) / alpha),
H0 once LLR <= ln(beta / (1 - alpha)), and goes on in between.

The two Elo models say what a bound means:
- logistic: the expected score of a game, s = 1 / (1 + 10^(-elo/400));
- normalized (fishtest's default): the t-value of the score, elo / (800 / ln 10) = (s - 1/2) / sigma per game.
  A pair's sigma is that of the pair's mean score, and sigma per game is sqrt(2) times it, so the bound on the
  t-value of the pentanomial distribution is sqrt(2) * elo / (800 / ln 10).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from bots.sprt.counts import PENTANOMIAL, Counts
from bots.sprt.distribution import Distribution, empirical, fit_mean, fit_t_value

NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (per game): 347.4355855...
MAX_BOUND = {"logistic": 1000.0, "normalized": 200.0}  # beyond, the fits fail for lopsided counts


class EloModel(enum.StrEnum):
    LOGISTIC = "logistic"
    NORMALIZED = "normalized"


class Verdict(enum.StrEnum):
    H1 = "H1"  # NEW is at least elo1 better
    H0 = "H0"  # NEW is at most elo0 better


def logistic_score(elo: float) -> float:
    """The expected score of a game won by an Elo difference `elo`."""
    return 1 / (1 + 10 ** (-elo / 400))


def logistic_elo(score: float) -> float:
    """The Elo difference of an expected score, the score clamped to [0.001, 0.999] as fishtest does."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class SPRT:
    """A test's design: its hypotheses, Elo model and error rates."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    elo_model: EloModel = EloModel.NORMALIZED

    def __post_init__(self) -> None:
        object.__setattr__(self, "elo_model", EloModel(self.elo_model))
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be a finite number")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got elo0={self.elo0:g}, elo1={self.elo1:g}")
        limit = MAX_BOUND[self.elo_model]
        if max(abs(self.elo0), abs(self.elo1)) > limit:
            raise ValueError(f"{self.elo_model} Elo bounds must lie within +-{limit:g}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} is an error rate between 0 and 0.5, got {getattr(self, name):g}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ln((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Counts) -> float:
        """The log-likelihood ratio of H1 against H0 after these counts."""
        total, observed = empirical(counts.cells)
        return total * expected_jump(observed, *self.fits(observed, counts.kind))

    def fits(self, distribution: Distribution, kind: str) -> tuple[Distribution, Distribution]:
        """The maximum-likelihood distributions under H0 and under H1, given `distribution`."""
        if self.elo_model == EloModel.LOGISTIC:
            return fit_mean(distribution, logistic_score(self.elo0)), fit_mean(distribution, logistic_score(self.elo1))
        scale = math.sqrt(2) if kind == PENTANOMIAL else 1.0
        return (
            fit_t_value(distribution, 0.5, scale * self.elo0 / NELO_PER_T),
            fit_t_value(distribution, 0.5, scale * self.elo1 / NELO_PER_T),
        )

    def verdict(self, llr: float) -> Verdict | None:
        if llr >= self.upper:
            return Verdict.H1
        if llr <= self.lower:
            return Verdict.H0
        return None

    def to_json(self) -> dict[str, float | str]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "elo_model": str(self.elo_model),
            "alpha": self.alpha,
            "beta": self.beta,
        }


def jumps(h0: Distribution, h1: Distribution) -> list[float]:
    """What one sample in each cell adds to the LLR: ln p1_i - ln p0_i."""
    return [math.log(p1) - math.log(p0) for p0, p1 in zip(h0.probs, h1.probs, strict=True)]


def expected_jump(weights: Distribution, h0: Distribution, h1: Distribution) -> float:
    return _weighted(weights.probs, jumps(h0, h1))


def _weighted(probs: Sequence[float], values: Sequence[float]) -> float:
    return sum(p * v for p, v in zip(probs, values, strict=True))
