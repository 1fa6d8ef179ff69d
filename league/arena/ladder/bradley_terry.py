"""Ladder ratings: a Bradley-Terry maximum-likelihood fit on the Elo scale.

Every rated game between two bot versions is one observation; each bot version is its own player.
Player ``i`` has a strength ``theta_i`` and beats ``j`` with probability
``1 / (1 + exp(theta_j - theta_i))``; a draw counts as half a win for each side. Elo is
``anchor + theta * 400 / ln(10)``, so a 75 % score is a gap of ``400 * log10(3)`` (about 191) Elo.

Prior: every player is credited with ``prior_games`` virtual draws, shared evenly among the opponents
it actually met (as bayeselo does). That keeps an unbeaten or winless record finite (it "drew"
its own opponents a little) and barely moves anything else. It is deliberately not a pull towards a
fixed rating: the league pairs close ratings, so opponents form a long chain from the weakest to the
strongest, and a per-player pull towards 1500 would squeeze that chain (in a simulated chain of
2,000 versions it kept 3 % of the true spread); pulling only along games played keeps it.

Scale: games only fix differences, so each connected group of players (normally the whole ladder)
has its mean Elo set to ``anchor``; a group that never met the rest sits on ``anchor`` too. The fit
is the maximum of the posterior, by Newton's method (dense Cholesky solves, or conjugate gradients on
the sparse Hessian above ``DENSE_LIMIT`` players) finished by one exact step. ``low`` and ``high``
are a 95 % interval for the player's offset from its group's mean, from the inverse of the Hessian of
the negative log-posterior (the observed Fisher information) at the optimum. A player without games
is placed on ``anchor`` with an infinite interval.

Games are aggregated to per-pair counts before fitting, and the fit depends only on those counts, so
refitting from scratch on the same games in any order gives the same numbers.

API
---
``fit_ratings(results, *, prior_games=2.0, anchor=1500.0) -> dict[player, Rating]``
    ``results`` yields ``(player_a, player_b, score_a)`` with ``score_a`` in {0, 0.5, 1}.
``fit_counts(players, a, b, *, wins_a, wins_b, draws=None, prior_games=2.0, anchor=1500.0, start=None)``
    Pre-aggregated form (e.g. from a SQL ``GROUP BY``): row ``k`` says ``players[a[k]]`` and
    ``players[b[k]]`` played ``wins_a[k] + wins_b[k] + draws[k]`` games. A pair may appear in several
    rows and in either orientation; one row per game is valid too. ``start`` (player -> Elo, e.g. the
    previous fit's) only sets where Newton's method starts: a refit after a few more games then takes
    two or three steps instead of seven or eight, and ends on the same optimum (to ~1e-12 Elo).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit
from threadpoolctl import threadpool_limits

ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal
# A weaker prior leaves an unbeaten player's curvature below double precision: the fit turns singular.
MIN_PRIOR_GAMES = 1e-6

# The league refits on 2 cores shared with running matches; there, BLAS with 2 threads fighting the
# other processes made a 200-player fit 18x slower than with 1.
BLAS_THREADS = 1
DENSE_LIMIT = 1500  # above this many players, Newton steps use the sparse Hessian (CG, else sparse LU)

# Step sizes are measured in standard errors (see _posterior_mode).
_STEP_TOLERANCE = 1e-6  # stop iterating; one exact Newton step then leaves an error of ~1e-12
_NOISE_SIZE = 1e-3  # below this, a step that stops shrinking is rounding noise
_PURE_NEWTON_SIZE = 1e-2  # below this step size, or this Newton decrement, no line search is needed:
_PURE_NEWTON_DECREMENT = 1e-6  # the objective's decrease would drown in its rounding noise anyway
_MAX_ITERATIONS = 200
_CG_TOLERANCE = 1e-8
_CG_MAX_ITERATIONS = 1000
_HALF_POINTS = {0: 0, 0.5: 1, 1: 2}


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's fitted Elo, its 95 % interval and the record it was fitted on (real games only)."""

    elo: float
    low: float
    high: float
    games: int
    wins: int
    losses: int
    draws: int


def fit_ratings(
    results: Iterable[tuple[Hashable, Hashable, float]],
    *,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
) -> dict[Hashable, Rating]:
    """Fit ratings to individual game results ``(player_a, player_b, score_a)``, score_a in {0, 0.5, 1}."""
    index: dict[Hashable, int] = {}
    a_list: list[int] = []
    b_list: list[int] = []
    halves: list[int] = []
    for number, result in enumerate(results):
        try:
            player_a, player_b, score = result
        except (TypeError, ValueError):
            raise ValueError(f"result #{number} is {result!r}; expected (player_a, player_b, score_a)") from None
        try:
            half = _HALF_POINTS.get(score)
        except TypeError:
            half = None
        if half is None:
            raise ValueError(f"result #{number} has score_a {score!r}; expected 0, 0.5 or 1")
        a_list.append(index.setdefault(player_a, len(index)))
        b_list.append(index.setdefault(player_b, len(index)))
        halves.append(half)

    # Number the players canonically so that the input order cannot change a single bit of the fit.
    players = list(index)
    try:
        players.sort()
    except TypeError:
        pass  # ids of mixed types: keep first-seen order; the optimum is still the same to ~1e-12
    rank = np.empty(len(players), dtype=np.int64)
    rank[[index[p] for p in players]] = np.arange(len(players))
    a = rank[np.asarray(a_list, dtype=np.int64)]
    b = rank[np.asarray(b_list, dtype=np.int64)]
    h = np.asarray(halves, dtype=np.int64)
    return fit_counts(
        players,
        a,
        b,
        wins_a=h == 2,
        wins_b=h == 0,
        draws=h == 1,
        prior_games=prior_games,
        anchor=anchor,
    )


def fit_counts(
    players: Sequence[Hashable],
    a: ArrayLike,
    b: ArrayLike,
    *,
    wins_a: ArrayLike,
    wins_b: ArrayLike,
    draws: ArrayLike | None = None,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
    start: Mapping[Hashable, float] | None = None,
) -> dict[Hashable, Rating]:
    """Fit ratings to game counts: row k = ``players[a[k]]`` vs ``players[b[k]]`` with its wins/losses/draws."""
    n = len(players)
    if len(set(players)) != n:
        raise ValueError("players contains the same player more than once")
    if not (MIN_PRIOR_GAMES <= prior_games < math.inf):
        raise ValueError(f"prior_games must be a finite number >= {MIN_PRIOR_GAMES}, got {prior_games!r}")
    if not math.isfinite(anchor):
        raise ValueError(f"anchor must be finite, got {anchor!r}")
    a_idx = _indices(a, "a", n)
    b_idx = _indices(b, "b", n)
    rows = len(a_idx)
    wa = _counts(wins_a, "wins_a", rows)
    wb = _counts(wins_b, "wins_b", rows)
    dr = np.zeros(rows, dtype=np.int64) if draws is None else _counts(draws, "draws", rows)
    if len(b_idx) != rows:
        raise ValueError(f"a has {rows} rows but b has {len(b_idx)}")
    same = np.flatnonzero(a_idx == b_idx)
    if same.size:
        raise ValueError(f"row {same[0]}: player {players[a_idx[same[0]]]!r} plays itself")

    wins = np.bincount(a_idx, wa, n) + np.bincount(b_idx, wb, n)
    losses = np.bincount(a_idx, wb, n) + np.bincount(b_idx, wa, n)
    drawn = np.bincount(a_idx, dr, n) + np.bincount(b_idx, dr, n)

    i, j, half_points_i, games = _pairs(n, a_idx, b_idx, wa, wb, dr)
    opponents = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    virtual_draws = prior_games / opponents[i] + prior_games / opponents[j]
    _, group = scipy.sparse.csgraph.connected_components(
        scipy.sparse.coo_array((np.ones(len(i)), (i, j)), shape=(n, n)), directed=False
    )
    initial = np.zeros(n)
    if start:
        initial = np.array([(start.get(player, anchor) - anchor) / ELO_PER_NAT for player in players], dtype=float)
        if not np.all(np.isfinite(initial)):
            raise ValueError("start holds a rating that is not a finite number")
    problem = (n, i, j, (half_points_i + virtual_draws) / 2.0, games + virtual_draws, group.astype(np.int64))
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
        try:
            theta, variance = _posterior_mode(*problem, initial)
        except RuntimeError:
            if not initial.any():
                raise
            # A start far off (ratings from very different games) can leave the Hessian numerically flat.
            theta, variance = _posterior_mode(*problem, np.zeros(n))

    elo = anchor + ELO_PER_NAT * theta
    margin = np.where(opponents > 0, Z95 * ELO_PER_NAT * np.sqrt(variance), math.inf)
    return {
        player: Rating(
            elo=float(elo[k]),
            low=float(elo[k] - margin[k]),
            high=float(elo[k] + margin[k]),
            games=int(wins[k] + losses[k] + drawn[k]),
            wins=int(wins[k]),
            losses=int(losses[k]),
            draws=int(drawn[k]),
        )
        for k, player in enumerate(players)
    }


def _indices(values: ArrayLike, name: str, n: int) -> NDArray[np.int64]:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integer player indices, got dtype {array.dtype}")
    array = array.astype(np.int64, copy=False)
    bad = np.flatnonzero((array < 0) | (array >= n))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] = {array[bad[0]]} is not an index into the {n} players")
    return array


def _counts(values: ArrayLike, name: str, rows: int) -> NDArray[np.int64]:
    array = np.asarray(values)
    if array.shape != (rows,):
        raise ValueError(f"{name} must have shape ({rows},) like a, got {array.shape}")
    if array.dtype == bool:
        return array.astype(np.int64)
    if not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"{name} must be numeric, got dtype {array.dtype}")
    whole = array.astype(np.int64)
    bad = np.flatnonzero((whole != array) | (whole < 0))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] = {array[bad[0]].item()!r} is not a non-negative whole number of games")
    return whole


def _pairs(
    n: int,
    a: NDArray[np.int64],
    b: NDArray[np.int64],
    wins_a: NDArray[np.int64],
    wins_b: NDArray[np.int64],
    draws: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Sum the rows per unordered pair (i < j): i's score in half points and the number of games.

    The sums are integers, so they are exact whatever the row order.
    """
    swap = a > b
    i = np.where(swap, b, a)
    j = np.where(swap, a, b)
    half_points_i = 2 * np.where(swap, wins_b, wins_a) + draws
    games = wins_a + wins_b + draws
    keys, inverse = np.unique(i * n + j, return_inverse=True)
    half_points_i = np.bincount(inverse, half_points_i, len(keys))
    games = np.bincount(inverse, games, len(keys))
    played = games > 0
    keys = keys[played]
    return keys // n, keys % n, half_points_i[played], games[played]


def _posterior_mode(
    n: int,
    i: NDArray[np.int64],
    j: NDArray[np.int64],
    score_i: NDArray[np.float64],
    games: NDArray[np.float64],
    group: NDArray[np.int64],
    initial: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Maximise the log-posterior, starting from `initial`.

    Return the strengths (nats, every group's mean at 0) and the variances of their offsets from
    their group's mean.
    """
    posterior = _Posterior(n, i, j, score_i, games, group)
    theta = initial.copy()
    if n == 0:
        return theta, theta.copy()
    solve = posterior.dense_step if n <= DENSE_LIMIT else posterior.sparse_step

    value = posterior.value(theta)
    previous_size = math.inf
    for _ in range(_MAX_ITERATIONS):
        gradient, weight, diagonal = posterior.derivatives(theta)
        step = solve(gradient, weight, diagonal)
        # The step in units of (a lower bound on) each strength's standard error, so that the stop
        # suits well-measured players and near-flat directions (tiny prior, no losses) alike.
        size = float(np.max(np.abs(step) * np.sqrt(diagonal)))
        decrement = -float(gradient @ step)
        if size <= _PURE_NEWTON_SIZE or decrement <= _PURE_NEWTON_DECREMENT:
            # Close to the optimum plain Newton converges quadratically; once tiny, a step that no
            # longer shrinks means the gradient is down to rounding noise.
            theta = theta + step
            if size < _STEP_TOLERANCE or _NOISE_SIZE > size >= previous_size:
                break
            previous_size = size
            continue
        # Far from it (an unbeaten player, a tiny prior) a full step can overshoot: backtrack.
        t = 1.0
        while posterior.value(theta + t * step) > value - 1e-4 * t * decrement and t > 1e-10:
            t /= 2.0
        theta = theta + t * step
        value = posterior.value(theta)
    else:
        raise RuntimeError(f"rating fit did not converge in {_MAX_ITERATIONS} Newton iterations")

    # One exact Newton step from within a millionth of a standard error: the error left is ~1e-12,
    # and the factor of the Hessian (the Fisher information) gives the variances.
    gradient, weight, diagonal = posterior.derivatives(theta)
    factor = posterior.cholesky(weight, diagonal)
    theta = theta - scipy.linalg.cho_solve((factor, True), gradient, check_finite=False)
    size = posterior.group_size
    theta -= np.bincount(group, theta)[group] / size

    # The offset of i from its group's mean is e'theta with e = unit_i - u / m (u: the group's
    # indicator, m its size). e is orthogonal to the gauge, so e' H^-1 e is its variance, and
    # e' H^-1 e = (H^-1)_ii - 2 (H^-1 u)_i / m + u' H^-1 u / m^2. H is block-diagonal by group, so
    # one solve against all-ones gives every group's H^-1 u.
    ones_solved = scipy.linalg.cho_solve((factor, True), np.ones(n), check_finite=False)
    inverse_factor, info = scipy.linalg.lapack.dtrtri(factor, lower=True, overwrite_c=True)
    if info != 0:
        raise RuntimeError(f"Fisher information is not invertible (LAPACK dtrtri info={info})")
    diagonal_of_inverse = np.einsum("ij,ij->j", inverse_factor, inverse_factor)  # diag(L^-T L^-1)
    variance = diagonal_of_inverse - 2.0 * ones_solved / size + np.bincount(group, ones_solved)[group] / size**2
    return theta, np.maximum(variance, 0.0)


class _Posterior:
    """Negative log-posterior of the strengths and its derivatives, over the pairs that met.

    Virtual draws are already in the pair counts. Games only fix differences, so each group's first
    player gets the penalty ``theta**2 / 2``: it fixes the gauge (that player sits at 0 until the
    result is re-centred), changes nothing else, and keeps the Hessian sparse and positive definite.
    """

    def __init__(
        self,
        n: int,
        i: NDArray[np.int64],
        j: NDArray[np.int64],
        score_i: NDArray[np.float64],
        games: NDArray[np.float64],
        group: NDArray[np.int64],
    ) -> None:
        self.n, self.i, self.j = n, i, j
        self.score_i, self.score_j, self.games = score_i, games - score_i, games
        counts = np.bincount(group)
        self.group_size = counts[group].astype(np.float64)  # per player
        self.pinned = np.zeros(n)
        self.pinned[np.unique(group, return_index=True)[1]] = 1.0
        self.cg_stalled = False

    def value(self, theta: NDArray[np.float64]) -> float:
        d = theta[self.i] - theta[self.j]
        # log sigmoid(-x) = log sigmoid(x) - x halves the transcendental work.
        data = self.score_j @ d - self.games @ log_expit(d)
        return float(data + (self.pinned @ theta**2) / 2.0)

    def derivatives(
        self, theta: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Gradient, per-pair curvature weights and the Hessian's diagonal.

        The Hessian is the weighted graph Laplacian of the pairs plus 1 on each pinned diagonal.
        """
        n, i, j = self.n, self.i, self.j
        d = theta[i] - theta[j]
        p, not_p = expit(d), expit(-d)
        # d(-log L)/d theta_i per pair (minus it for theta_j); written as games * p - score_i it would
        # lose all precision to cancellation for lopsided pairs.
        residual = self.score_j * p - self.score_i * not_p
        weight = self.games * p * not_p
        gradient = np.bincount(i, residual, n) - np.bincount(j, residual, n) + self.pinned * theta
        diagonal = np.bincount(i, weight, n) + np.bincount(j, weight, n) + self.pinned
        return gradient, weight, diagonal

    def cholesky(self, weight: NDArray[np.float64], diagonal: NDArray[np.float64]) -> NDArray[np.float64]:
        """Lower Cholesky factor of the dense Hessian."""
        n = self.n
        hessian = np.zeros((n, n))
        np.put(hessian, self.i * n + self.j, -weight)
        np.put(hessian, self.j * n + self.i, -weight)
        np.put(hessian, np.arange(n) * (n + 1), diagonal)
        try:
            return scipy.linalg.cholesky(hessian, lower=True, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise RuntimeError("the rating posterior lost positive curvature (prior_games too small?)") from None

    def dense_step(
        self, gradient: NDArray[np.float64], weight: NDArray[np.float64], diagonal: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        factor = self.cholesky(weight, diagonal)
        return -scipy.linalg.cho_solve((factor, True), gradient, check_finite=False)

    @cached_property
    def _csr_structure(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Where the entries [-weight, -weight, diagonal] go in a CSR matrix: order, columns, row starts."""
        n, i, j = self.n, self.i, self.j
        rows = np.concatenate([i, j, np.arange(n)])
        cols = np.concatenate([j, i, np.arange(n)])
        order = np.lexsort((cols, rows))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
        return order, cols[order], indptr

    def sparse_step(
        self, gradient: NDArray[np.float64], weight: NDArray[np.float64], diagonal: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Newton step on the sparse Hessian: Jacobi-preconditioned conjugate gradients, or, when they
        stall (a long thin chain of opponents is badly conditioned), a sparse LU factorisation.

        An inexact CG step only slows Newton down; the final exact step removes what is left.
        """
        order, indices, indptr = self._csr_structure
        values = np.concatenate([-weight, -weight, diagonal])[order]
        hessian = scipy.sparse.csr_array((values, indices, indptr), shape=(self.n, self.n))
        if not self.cg_stalled:
            jacobi = scipy.sparse.diags_array(1.0 / diagonal)
            step, info = scipy.sparse.linalg.cg(
                hessian, -gradient, rtol=_CG_TOLERANCE, maxiter=_CG_MAX_ITERATIONS, M=jacobi
            )
            if info == 0:
                return step
            self.cg_stalled = True  # the next Hessians have the same graph: go straight to LU
        lu = scipy.sparse.linalg.splu(hessian.tocsc(), permc_spec="MMD_AT_PLUS_A")
        return lu.solve(-gradient)
