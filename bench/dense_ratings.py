"""The dense rating fit the league used before issue 25, kept as the reference the sparse fit is checked against.

Same model as `bradley_terry` (Bradley-Terry, virtual draws shared among each player's opponents, every
connected group centred on the anchor), solved the old way: Newton's method on the dense n x n Hessian
(Cholesky), the intervals from the dense inverse of its factor. O(n^3) time and 2 n^2 doubles of memory,
so only for leagues of a few thousand players. Written apart from `bradley_terry` on purpose: a check that
shared the code it checks would share its mistakes.

    dense_fit(players, a, b, wins_a=..., wins_b=..., draws=..., fixed=None) -> (elo, variance, covariance matrix)

``fixed`` holds some players at given ratings (anchors): what `bench.ratings` compares keeping retired versions
in the fit as free players with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.csgraph
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit
from threadpoolctl import threadpool_limits

ELO_PER_NAT = 400.0 / math.log(10.0)
ANCHOR_STIFFNESS = 1e10  # curvature holding an anchor at its rating: its own is ~1e2, so it moves ~1e-8 of a nat


def dense_fit(
    players: Sequence[object],
    a: ArrayLike,
    b: ArrayLike,
    *,
    wins_a: ArrayLike,
    wins_b: ArrayLike,
    draws: ArrayLike | None = None,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
    fixed: Mapping[int, float] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Elo per player, the variance of its offset from its group's mean (Elo^2), and the covariance matrix.

    ``fixed`` (player index -> Elo) holds those players at that rating, as anchors: a group with an anchor is
    not centred, and its players' variances are their own (the anchors' are 0).
    """
    n = len(players)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    wins_a, wins_b = np.asarray(wins_a, dtype=np.float64), np.asarray(wins_b, dtype=np.float64)
    draws = np.zeros(len(a)) if draws is None else np.asarray(draws, dtype=np.float64)
    i, j = np.minimum(a, b), np.maximum(a, b)
    keys, inverse = np.unique(i * n + j, return_inverse=True)
    score_i = np.bincount(inverse, np.where(a < b, wins_a, wins_b) + draws / 2.0, len(keys))
    games = np.bincount(inverse, wins_a + wins_b + draws, len(keys))
    i, j = keys // n, keys % n
    opponents = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    virtual = prior_games / opponents[i] + prior_games / opponents[j]
    score_i, games = score_i + virtual / 2.0, games + virtual
    _, group = scipy.sparse.csgraph.connected_components(
        scipy.sparse.coo_array((np.ones(len(i)), (i, j)), shape=(n, n)), directed=False
    )
    # The gauge: the first player of each group is pinned to 0 (the group is centred afterwards), unless the
    # group has anchors, which a stiff penalty holds at their ratings instead.
    pinned, target = np.zeros(n), np.zeros(n)
    anchored = np.zeros(n, dtype=bool)
    for player, elo in (fixed or {}).items():
        pinned[player], target[player] = ANCHOR_STIFFNESS, (elo - anchor) / ELO_PER_NAT
        anchored[group == group[player]] = True
    firsts = np.unique(group, return_index=True)[1]
    pinned[firsts[~anchored[firsts]]] = 1.0

    def value(theta: NDArray[np.float64]) -> float:
        d = theta[i] - theta[j]
        return float((games - score_i) @ d - games @ log_expit(d) + pinned @ (theta - target) ** 2 / 2.0)

    def factor_and_gradient(theta: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        d = theta[i] - theta[j]
        p, not_p = expit(d), expit(-d)
        residual = (games - score_i) * p - score_i * not_p
        weight = games * p * not_p
        hessian = np.zeros((n, n))
        hessian[i, j] = hessian[j, i] = -weight
        hessian[np.arange(n), np.arange(n)] = np.bincount(i, weight, n) + np.bincount(j, weight, n) + pinned
        gradient = np.bincount(i, residual, n) - np.bincount(j, residual, n) + pinned * (theta - target)
        return scipy.linalg.cholesky(hessian, lower=True), gradient

    theta = target.copy()
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(200):
            factor, gradient = factor_and_gradient(theta)
            step = -scipy.linalg.cho_solve((factor, True), gradient)
            decrement = -float(gradient @ step)
            t, current = 1.0, value(theta)
            while decrement > 1e-6 and value(theta + t * step) > current - 1e-4 * t * decrement and t > 1e-10:
                t /= 2.0
            theta = theta + t * step
            if np.max(np.abs(step)) < 1e-10:
                break
        factor, gradient = factor_and_gradient(theta)
        theta = theta - scipy.linalg.cho_solve((factor, True), gradient)
        inverse_factor = scipy.linalg.solve_triangular(factor, np.eye(n), lower=True)
        inverse = inverse_factor.T @ inverse_factor
    # Offsets from each group's mean: e_i = unit_i - u / m, so cov_ij = Z_ij - s_i / m - s_j / m + u'Z u / m^2
    # with s = Z u (u: the group's indicator); the inverse is block-diagonal by group.
    size = np.bincount(group)[group]
    same = (group[:, None] == group[None, :]) & ~anchored[:, None]
    share = (inverse * same).sum(axis=1) / size
    total = np.bincount(group, share)[group] / size
    covariance = np.where(
        anchored[:, None], inverse, (inverse - share[:, None] - share[None, :] + total[:, None]) * same
    )
    theta -= np.where(anchored, 0.0, np.bincount(group, theta)[group] / size)
    return anchor + ELO_PER_NAT * theta, ELO_PER_NAT**2 * np.diag(covariance).copy(), ELO_PER_NAT**2 * covariance
