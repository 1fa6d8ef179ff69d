"""Versions with few opponents estimated through their opponents' covariances rather than by the series alone.

Given every other version, a version p's strength is normal with mean r'theta (r: its pairs' weights over its
weighted degree d_p, summing to 1: its opponents' strengths averaged by games) and variance 1/d_p, so

    Var(p) = 1/d_p + r' Cov(theta of its opponents) r

exactly (for the offset from its group's mean, to about 1 / the group's size). The series (variances.Series) goes
most wrong where walks return often, i.e. on versions with few opponents; through this identity their error is the
series' error on their opponents' covariances, who are better connected. At 10,000 bots it took the largest error of
versions with 4 to 10 opponents from 3.0-4.9 % (samples of 100) to under 1 %, in about 0.05 s. The elimination
(elimination.py) does the same exactly for short runs of versions with at most 3 opponents; versions with more are
refined here instead, as eliminating them would crowd the rest with fill-in.

The series' second-order estimate G = sum_{k<=2} (D^-1 W)^k D^-1 minus its stationary part gives, with s = D^-1 r,

    r' G r = r' s + s' W s + (W s)' D^-1 (W s) - 3 / volume,

one sparse product (W s) for every refined version at once; the projection onto offsets from the group's mean and
any slow modes (variances.SlowModes) are added as for any other entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse
from numpy.typing import NDArray

if TYPE_CHECKING:
    from league.arena.ladder.bradley_terry.variances import Series, SlowModes

# Versions with at most this many opponents (in the graph the series ran on) are refined. At 10,000 bots 10 left
# versions with 4 to 10 opponents of the original graph at 2.9 % (elimination gives some of them more), 20 took
# them to 0.9 % and those with 11 to 30 from 1.5 % to 0.5 %; 30 gained 0.1 % more at over twice the time.
FEW_OPPONENTS = 20


@dataclass(frozen=True)
class Refinement:
    """The refined versions' variances through their opponents, as far as the series gives them."""

    players: NDArray[np.int64]
    reach: scipy.sparse.csr_array  # a row per refined version: r, its pairs' weights over its weighted degree
    through_series: NDArray[np.float64]  # 1/d_p + r' P G P r (P: the projection onto offsets from the mean)

    @classmethod
    def of(cls, series: Series, chosen: NDArray[np.bool_]) -> Refinement:
        """Refine the versions marked in ``chosen`` that met between 1 and FEW_OPPONENTS opponents."""
        both = series.symmetric
        opponents = np.diff(both.indptr)
        players = np.flatnonzero(chosen & (opponents >= 1) & (opponents <= FEW_OPPONENTS))
        inverse = series.inverse_degree
        reach = (scipy.sparse.diags_array(inverse[players]) @ both[players]).tocsr()
        scaled = (reach @ scipy.sparse.diags_array(inverse)).tocsr()  # s' for each refined version
        walked = (scaled @ both).tocsr()  # (W s)'
        spread = (
            _row_sums(scaled.multiply(reach))
            + _row_sums(scaled.multiply(walked))
            + walked.multiply(walked) @ inverse
            - series.TERMS / series.volume[players]
        )
        size = series.size[players]
        projected = spread - 2.0 * (reach @ series.row_sums) / size + series.group_row_sums[players] / size**2
        return cls(players, reach, inverse[players] + projected)

    def apply(self, variance: NDArray[np.float64], modes: SlowModes | None = None) -> NDArray[np.float64]:
        """``variance`` with the refined versions' replaced: through the series, and ``modes``' share if given."""
        refined = variance.copy()
        value = self.through_series
        if modes is not None and len(self.players):
            value = value + ((self.reach @ modes.vectors) ** 2) @ modes.shares
        refined[self.players] = value
        return refined


def _row_sums(matrix: scipy.sparse.sparray) -> NDArray[np.float64]:
    return np.asarray(matrix.sum(axis=1)).ravel()
