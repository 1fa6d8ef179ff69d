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
has its mean Elo set to ``anchor``; a group that never met the rest sits on ``anchor`` too. ``low`` and
``high`` are a 95 % interval for the player's offset from its group's mean, from the inverse of the
Hessian of the negative log-posterior (the observed Fisher information) at the optimum. A player
without games is placed on ``anchor`` with an infinite interval.

Sparse maths: the Hessian is the weighted graph Laplacian of the pairs that met (one off-diagonal entry
per pair), so nothing is ever n x n. Each group is ordered by reverse Cuthill-McKee and cut into
consecutive blocks so that every pair lies within one block or two neighbouring ones; the Hessian is
then block tridiagonal. Where that factor is affordable (a ladder of close-rating pairings is a narrow
band; a small league is one or two dense blocks) the variances are exact: block Cholesky, then the
Takahashi recurrences give the inverse on the blocks, i.e. every variance and the covariance of every
pair that met. Where the blocks would be dense and large (opponents drawn from the whole ladder: an
expander, whose factor fills in completely) the variances are estimated from the Neumann series of the
Laplacian's pseudo-inverse to second order, which such a graph makes converge fast (errors below 0.1 %
on random leagues; measured by ``python -m bench.ratings``), and pair covariances are not given. The fit
itself is exact either way: Newton's method with conjugate-gradient steps, preconditioned by the
block factor (exact groups) or the diagonal (estimated ones), down to a step of a millionth of a
standard error, which leaves an error of ~1e-12.

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
``fit(...)`` (same arguments) -> ``Fit``
    The same fit as arrays: per player the Elo, the variance (Elo^2) and whether it is exact, and per
    pair that met its covariance (Elo^2; NaN where the variances are estimated). ``Fit.ratings`` is
    what ``fit_counts`` returns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import blas, lapack
from scipy.special import expit, log_expit
from threadpoolctl import threadpool_limits

ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal
# A weaker prior leaves an unbeaten player's curvature below double precision: the fit turns singular.
MIN_PRIOR_GAMES = 1e-6

# The league refits on 2 cores shared with running matches; there, BLAS with 2 threads fighting the
# other processes made a 200-player fit 18x slower than with 1.
BLAS_THREADS = 1
# A group's variances are exact while its block factor and inversion cost at most this many
# floating-point operations (a dense group of ~1,700 players, or a band of any length) and its blocks
# hold at most this many numbers; past either, they are estimated.
EXACT_FLOPS_LIMIT = 1e10
EXACT_ENTRIES_LIMIT = 4e7
BLOCK_SIZE = 64  # the smallest diagonal block: smaller ones cost more in Python than they save in flops

# Step sizes are measured in standard errors (see _posterior_mode).
_STEP_TOLERANCE = 1e-6  # stop after a step this small: quadratic convergence leaves an error of ~1e-12
_NOISE_SIZE = 1e-3  # below this, a step that stops shrinking is rounding noise
_PURE_NEWTON_SIZE = 1e-2  # below this step size, or this Newton decrement, no line search is needed:
_PURE_NEWTON_DECREMENT = 1e-6  # the objective's decrease would drown in its rounding noise anyway
_MAX_ITERATIONS = 200
_CG_TOLERANCE = 1e-3  # a Newton step's relative residual, tightened as the steps shrink
_SMALLEST_CG_TOLERANCE = 1e-12
_CG_MAX_ITERATIONS = 5000
_REFACTOR_AFTER = 20  # CG iterations in one step that say the block preconditioner has gone stale
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


@dataclass(frozen=True)
class Fit:
    """A whole fit, per player (in ``players`` order) and per pair of players that met (``pair_a < pair_b``).

    ``variance`` is of the player's offset from its group's mean, in Elo^2 (infinite without games);
    ``exact`` says whether it came from the factor or from the estimate; ``covariance`` is that of the
    two offsets of a pair, NaN where its group's variances are estimated.
    """

    players: Sequence[Hashable]
    elo: NDArray[np.float64]
    variance: NDArray[np.float64]
    exact: NDArray[np.bool_]
    pair_a: NDArray[np.int64]
    pair_b: NDArray[np.int64]
    covariance: NDArray[np.float64]
    wins: NDArray[np.int64]
    losses: NDArray[np.int64]
    draws: NDArray[np.int64]

    @cached_property
    def ratings(self) -> dict[Hashable, Rating]:
        margin = Z95 * np.sqrt(self.variance)
        low, high = (self.elo - margin).tolist(), (self.elo + margin).tolist()
        elo, wins, losses, draws = self.elo.tolist(), self.wins.tolist(), self.losses.tolist(), self.draws.tolist()
        return {
            player: Rating(
                elo=elo[k],
                low=low[k],
                high=high[k],
                games=wins[k] + losses[k] + draws[k],
                wins=wins[k],
                losses=losses[k],
                draws=draws[k],
            )
            for k, player in enumerate(self.players)
        }


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
    return fit(
        players, a, b, wins_a=wins_a, wins_b=wins_b, draws=draws, prior_games=prior_games, anchor=anchor, start=start
    ).ratings


def fit(
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
) -> Fit:
    """``fit_counts`` as arrays, with each player's variance and the covariance of each pair that met."""
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
    if start:
        initial = np.array([(start.get(player, anchor) - anchor) / ELO_PER_NAT for player in players], dtype=float)
        if not np.all(np.isfinite(initial)):
            raise ValueError("start holds a rating that is not a finite number")
    else:
        initial = _log_odds(n, i, j, half_points_i, games)
    if n == 0:
        return Fit(players, *(np.zeros(0),) * 2, np.zeros(0, dtype=bool), i, j, *(np.zeros(0),), wins, losses, drawn)
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
        posterior = _Posterior(_Graph(n, i, j), (half_points_i + virtual_draws) / 2.0, games + virtual_draws)
        try:
            mode = _posterior_mode(posterior, initial)
        except RuntimeError:
            if not start:
                raise
            # A start far off (ratings from very different games) can leave the Hessian numerically flat.
            mode = _posterior_mode(posterior, _log_odds(n, i, j, half_points_i, games))

    variance = np.where(opponents > 0, ELO_PER_NAT**2 * mode.variance, math.inf)
    return Fit(
        players=players,
        elo=anchor + ELO_PER_NAT * mode.theta,
        variance=variance,
        exact=mode.exact,
        pair_a=i,
        pair_b=j,
        covariance=ELO_PER_NAT**2 * mode.covariance,
        wins=wins.astype(np.int64),
        losses=losses.astype(np.int64),
        draws=drawn.astype(np.int64),
    )


def _log_odds(
    n: int,
    i: NDArray[np.int64],
    j: NDArray[np.int64],
    half_points_i: NDArray[np.float64],
    games: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Each player's log-odds of scoring, a game won and a game lost added: where Newton's method starts.

    Against opponents from across the ladder this is close to the fitted strength (from there a
    random-opponent league of 20,000 versions takes 5 steps rather than 8 from all zeros); against
    close ratings it is close to zero, as the fit is.
    """
    score = (np.bincount(i, half_points_i, n) + np.bincount(j, 2.0 * games - half_points_i, n)) / 2.0
    played = np.bincount(i, games, n) + np.bincount(j, games, n)
    return np.log((score + 1.0) / (played - score + 1.0))


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
    """Sum the rows per unordered pair (i < j), sorted by (i, j): i's score in half points and the games.

    The sums are integers, so they are exact whatever the row order.
    """
    swap = a > b
    if swap.any():
        a, b, wins_a, wins_b = (
            np.where(swap, b, a),
            np.where(swap, a, b),
            np.where(swap, wins_b, wins_a),
            np.where(swap, wins_a, wins_b),
        )
    half_points_a = 2 * wins_a + draws
    games = wins_a + wins_b + draws
    keys = a * n + b
    if not np.all(keys[1:] > keys[:-1]):  # rows not already one per pair in order (as a GROUP BY gives them)
        keys, inverse = np.unique(keys, return_inverse=True)
        half_points_a = np.bincount(inverse, half_points_a, len(keys))
        games = np.bincount(inverse, games, len(keys))
    played = games > 0
    if not played.all():
        keys, half_points_a, games = keys[played], half_points_a[played], games[played]
    return keys // n, keys % n, half_points_a, games


# --- the graph of pairs ------------------------------------------------------------------------------


def _symmetric_pattern(
    n: int, i: NDArray[np.int64], j: NDArray[np.int64], upper: scipy.sparse.csr_array
) -> scipy.sparse.csr_array:
    """The pattern of the pairs both ways, as CSR with sorted rows; ``upper`` holds them once (i < j)."""
    # The lower triangle is the upper one's transpose, which a CSC conversion (a counting sort) gives.
    lower = upper.tocsc()
    below, above = np.diff(lower.indptr), np.diff(upper.indptr)
    indptr = np.zeros(n + 1, dtype=upper.indptr.dtype)
    np.cumsum(below + above, out=indptr[1:])
    indices = np.empty(2 * len(i), dtype=upper.indices.dtype)
    row_of_lower = np.repeat(np.arange(n), below)
    indices[indptr[row_of_lower] + np.arange(len(i)) - lower.indptr[row_of_lower]] = lower.indices
    row_of_upper = np.repeat(np.arange(n), above)
    indices[indptr[row_of_upper] + below[row_of_upper] + np.arange(len(i)) - upper.indptr[row_of_upper]] = j
    return scipy.sparse.csr_array((np.ones(2 * len(i)), indices, indptr), shape=(n, n))


class _Graph:
    """Who met whom, cut into connected groups, each solved exactly (block factor) or estimated.

    ``order`` lists the exactly solved players group by group in reverse Cuthill-McKee order, and
    ``chain`` cuts it into blocks such that every pair lies within one block or two neighbouring ones.
    """

    def __init__(self, n: int, i: NDArray[np.int64], j: NDArray[np.int64]) -> None:
        self.n, self.i, self.j = n, i, j
        # The pairs are sorted by (i, j): as the upper triangle of a CSR matrix, their weights are its data.
        index_type = np.int32 if 2 * len(i) < 2**31 else np.int64
        self.upper_indptr = np.zeros(n + 1, dtype=index_type)
        np.cumsum(np.bincount(i, minlength=n), out=self.upper_indptr[1:])
        self.upper_columns = j.astype(index_type)
        pattern = _symmetric_pattern(n, i, j, self.upper(np.ones(len(i))))
        # The pattern is symmetric, so its strong components are the groups (and need no transpose).
        _, group = scipy.sparse.csgraph.connected_components(pattern, directed=True, connection="strong")
        self.group = group.astype(np.int64)
        self.group_size = np.bincount(self.group).astype(np.float64)
        # Each group comes out of reverse Cuthill-McKee in one piece.
        rcm = scipy.sparse.csgraph.reverse_cuthill_mckee(pattern, symmetric_mode=True).astype(np.int64)
        exact_group = _affordable_groups(rcm, self.group, i, j)
        exact_player = exact_group[self.group]
        self.order = rcm[exact_player[rcm]]
        self.exact_pairs = np.flatnonzero(exact_player[i])
        self.exact_player = exact_player
        self.chain = _BlockChain(self.order, i[self.exact_pairs], j[self.exact_pairs], n)
        # The block factor is of the Hessian with each exact group's first player pinned (+1 on its diagonal):
        # full rank, and, for a right-hand side whose group sums are 0, the same solution up to a shift.
        self.pinned = np.zeros(n)
        firsts = np.unique(self.group, return_index=True)[1]
        self.pinned[firsts[exact_group]] = 1.0

    def upper(self, weight: NDArray[np.float64]) -> scipy.sparse.csr_array:
        """The pairs' weights as the upper triangle of a sparse matrix (no copy)."""
        return scipy.sparse.csr_array((weight, self.upper_columns, self.upper_indptr), shape=(self.n, self.n))

    def centre(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each group's mean subtracted."""
        return theta - np.bincount(self.group, theta)[self.group] / self.group_size[self.group]


def _affordable_groups(
    rcm: NDArray[np.int64], group: NDArray[np.int64], i: NDArray[np.int64], j: NDArray[np.int64]
) -> NDArray[np.bool_]:
    """Per group: can its block factor be afforded (EXACT_FLOPS_LIMIT, EXACT_ENTRIES_LIMIT)?"""
    position = np.empty(len(rcm), dtype=np.int64)
    position[rcm] = np.arange(len(rcm))
    grouped = group[rcm]
    group_end = np.flatnonzero(np.diff(grouped)) + 1
    ends = np.append(group_end, len(rcm))
    end_of = np.repeat(ends, np.diff(np.concatenate([[0], ends])))
    pi, pj = position[i], position[j]
    starts = _block_starts(_reach(np.minimum(pi, pj), np.maximum(pi, pj), len(rcm)), end_of)
    sizes = np.diff(starts).astype(np.float64)
    following = np.append(sizes[1:], 0.0)
    following[np.append(grouped[starts[1:-1]] != grouped[starts[:-2]], True)] = 0.0
    block_group = grouped[starts[:-1]]
    groups = int(group.max()) + 1 if len(group) else 0
    flops = np.bincount(block_group, _block_flops(sizes, following), groups)
    entries = np.bincount(block_group, sizes * (sizes + following), groups)
    return (flops <= EXACT_FLOPS_LIMIT) & (entries <= EXACT_ENTRIES_LIMIT)


def _block_flops(sizes: NDArray[np.float64], following: NDArray[np.float64]) -> NDArray[np.float64]:
    """Floating-point operations to factor and invert each block with its coupling to the next."""
    return 2.0 * sizes**3 + 3.0 * sizes**2 * following + 3.0 * sizes * following**2


def _reach(low: NDArray[np.int64], high: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """For each of n positions, the furthest position met by anyone up to it (at least itself).

    Pair k joins positions low[k] < high[k].
    """
    far = np.arange(n)
    np.maximum.at(far, low, high)
    return np.maximum.accumulate(far) if n else far


def _block_starts(reach: NDArray[np.int64], end_of: NDArray[np.int64]) -> NDArray[np.int64]:
    """Cut positions 0..n into blocks such that every pair lies within one block or two neighbouring ones.

    A block reaches from where the last one ended to the furthest opponent of anyone in the last one (at
    least BLOCK_SIZE), never past ``end_of`` (the end of the group, so that a block never spans two groups
    when the groups' costs are counted apart).
    """
    n = len(reach)
    starts = [0]
    begin, end = 0, min(BLOCK_SIZE, int(end_of[0])) if n else 0
    while end < n:
        if end == end_of[begin]:
            next_end = min(end + BLOCK_SIZE, int(end_of[end]))
        else:
            next_end = min(max(int(reach[end - 1]) + 1, end + BLOCK_SIZE), int(end_of[end]))
        starts.append(end)
        begin, end = end, next_end
    starts.append(n)
    return np.asarray(starts, dtype=np.int64)


class _BlockChain:
    """The exactly solved part of the Hessian as consecutive dense blocks: where each entry goes.

    Block ``k`` holds positions ``starts[k]:starts[k + 1]`` of ``order``; ``diagonal[k]`` is its lower
    triangle and ``coupling[k]`` the rows of block ``k + 1`` against the columns of block ``k``. All of
    them live in one flat buffer; ``pair_slot`` and ``diagonal_slot`` say where each pair's and each
    player's entry goes in it.
    """

    def __init__(self, order: NDArray[np.int64], i: NDArray[np.int64], j: NDArray[np.int64], n: int) -> None:
        position = np.full(n, -1, dtype=np.int64)
        position[order] = np.arange(len(order))
        pi, pj = np.take(position, i), np.take(position, j)
        low, high = np.minimum(pi, pj), np.maximum(pi, pj)
        self.order = order
        self.starts = _block_starts(_reach(low, high, len(order)), np.full(len(order), len(order)))
        sizes = np.diff(self.starts)
        following = np.append(sizes[1:], 0)
        square_offsets = np.concatenate([[0], np.cumsum(sizes * sizes)])
        coupling_offsets = square_offsets[-1] + np.concatenate([[0], np.cumsum(sizes * following)])
        self.sizes, self.square_offsets, self.coupling_offsets = sizes, square_offsets, coupling_offsets
        self.buffer_size = int(coupling_offsets[-1])
        block_of = np.repeat(np.arange(len(sizes)), sizes)
        bl, bh = np.take(block_of, low), np.take(block_of, high)
        # Within its block (or its coupling block): row high - start of bh, column low - start of bl.
        offset = np.where(bl == bh, np.take(square_offsets, bl), np.take(coupling_offsets, bl))
        row, column = high - np.take(self.starts, bh), low - np.take(self.starts, bl)
        self.pair_slot = offset + row * np.take(sizes, bl) + column
        local = np.arange(len(order)) - np.take(self.starts, block_of)
        self.diagonal_slot = np.take(square_offsets, block_of) + local * np.take(sizes, block_of) + local

    def factor(self, weight: NDArray[np.float64], diagonal: NDArray[np.float64]) -> _BlockFactor:
        """Cholesky factor of the blocks, from the exact pairs' weights and the diagonal (in ``order``)."""
        buffer = np.zeros(self.buffer_size)
        buffer[self.pair_slot] = -weight
        buffer[self.diagonal_slot] = diagonal
        return _BlockFactor(self, buffer)

    def square(self, buffer: NDArray[np.float64], k: int) -> NDArray[np.float64]:
        size = self.sizes[k]
        return buffer[self.square_offsets[k] : self.square_offsets[k + 1]].reshape(size, size)

    def coupling(self, buffer: NDArray[np.float64], k: int) -> NDArray[np.float64]:
        return buffer[self.coupling_offsets[k] : self.coupling_offsets[k + 1]].reshape(self.sizes[k + 1], -1)


class _BlockFactor:
    """H = L L' with L block lower bidiagonal: ``lower[k]`` on the diagonal, ``below[k]`` under it."""

    def __init__(self, chain: _BlockChain, buffer: NDArray[np.float64]) -> None:
        self.chain, self.buffer = chain, buffer
        self.lower: list[NDArray[np.float64]] = []
        self.below: list[NDArray[np.float64]] = []
        blocks = len(chain.sizes)
        for k in range(blocks):
            square = chain.square(buffer, k)
            if k:
                square -= self.below[k - 1] @ self.below[k - 1].T
            factor, info = lapack.dpotrf(square, lower=1, clean=1)
            if info != 0:
                raise RuntimeError("the rating posterior lost positive curvature (prior_games too small?)")
            self.lower.append(factor)
            if k + 1 < blocks:
                solved, _ = lapack.dtrtrs(factor, chain.coupling(buffer, k).T, lower=1)  # L_k^-1 E_k'
                self.below.append(solved.T)

    def solve(self, rhs: NDArray[np.float64]) -> NDArray[np.float64]:
        """H^-1 rhs, with rhs and the result in ``order``."""
        starts, blocks = self.chain.starts, len(self.lower)
        forward: list[NDArray[np.float64]] = []
        for k in range(blocks):
            part = rhs[starts[k] : starts[k + 1]]
            if k:
                part = part - self.below[k - 1] @ forward[k - 1]
            forward.append(lapack.dtrtrs(self.lower[k], part, lower=1)[0])
        result = np.empty_like(rhs)
        later = None
        for k in reversed(range(blocks)):
            part = forward[k] if later is None else forward[k] - self.below[k].T @ later
            later = lapack.dtrtrs(self.lower[k], part, lower=1, trans=1)[0]
            result[starts[k] : starts[k + 1]] = later
        return result

    def selected_inverse(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """H^-1 on the blocks (Takahashi): its diagonal (in ``order``) and its entry for each exact pair.

        With Z = H^-1 = L^-T L^-1, block row k of L'Z = L^-1 gives, from the last block up,
        Z[k+1, k] = -Z[k+1, k+1] B_k L_k^-1 and Z[k, k] = L_k^-T L_k^-1 + (B_k L_k^-1)' Z[k+1, k+1] (B_k L_k^-1).
        """
        chain, inverse = self.chain, self.buffer  # the Hessian's entries are no longer needed
        following = None  # Z[k+1, k+1]; like every diagonal block here, only its lower triangle is right
        for k in reversed(range(len(self.lower))):
            lower_inverse, info = lapack.dtrtri(self.lower[k], lower=1)
            if info != 0:
                raise RuntimeError(f"Fisher information is not invertible (LAPACK dtrtri info={info})")
            square, _ = lapack.dlauum(lower_inverse, lower=1)  # L^-T L^-1, a third of a matrix product's work
            if following is not None:
                scaled = self.below[k] @ lower_inverse
                propagated = blas.dsymm(1.0, following, scaled, lower=1)
                square += scaled.T @ propagated
                chain.coupling(inverse, k)[...] = -propagated
            chain.square(inverse, k)[...] = square  # read below the diagonal only (pair_slot, diagonal_slot)
            following = square
        return inverse[chain.diagonal_slot], inverse[chain.pair_slot]


# --- the posterior and its optimum ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Mode:
    theta: NDArray[np.float64]  # nats, every group's mean at 0
    variance: NDArray[np.float64]  # nats^2, of each offset from its group's mean
    exact: NDArray[np.bool_]
    covariance: NDArray[np.float64]  # per pair; NaN where estimated


class _Posterior:
    """Negative log-posterior of the strengths and its derivatives, over the pairs that met.

    Virtual draws are already in the pair counts. Games only fix differences; the gauge is fixed by the
    penalty ``theta**2 / 2`` on each exact group's first player (it sits at 0 until the result is
    re-centred), and by keeping each estimated group at mean 0.
    """

    def __init__(self, graph: _Graph, score_i: NDArray[np.float64], games: NDArray[np.float64]) -> None:
        self.graph = graph
        self.score_i, self.score_j, self.games = score_i, games - score_i, games

    def value(self, theta: NDArray[np.float64]) -> float:
        d = np.take(theta, self.graph.i) - np.take(theta, self.graph.j)
        # log sigmoid(-x) = log sigmoid(x) - x halves the transcendental work.
        data = self.score_j @ d - self.games @ log_expit(d)
        return float(data)

    def derivatives(
        self, theta: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Gradient, per-pair curvature weights and the Hessian's diagonal.

        The Hessian is the weighted graph Laplacian of the pairs.
        """
        graph = self.graph
        n, i, j = graph.n, graph.i, graph.j
        d = np.take(theta, i) - np.take(theta, j)  # np.take: several times faster than theta[i] here
        p, not_p = expit(d), expit(-d)
        # d(-log L)/d theta_i per pair (minus it for theta_j); written as games * p - score_i it would
        # lose all precision to cancellation for lopsided pairs.
        residual = self.score_j * p - self.score_i * not_p
        weight = self.games * p * not_p
        gradient = np.bincount(i, residual, n) - np.bincount(j, residual, n)
        diagonal = np.bincount(i, weight, n) + np.bincount(j, weight, n)
        return gradient, weight, diagonal


class _NewtonSolver:
    """Newton steps by conjugate gradients on the sparse Hessian, the singular Laplacian: every group is kept at mean 0.

    Preconditioner: the diagonal, and on exact groups the block factor once the diagonal is not enough (a chain
    of close ratings needs it; opponents from across the ladder do not). The factor is refreshed when it goes
    stale (the weights move as the strengths do).
    """

    def __init__(self, graph: _Graph) -> None:
        self.graph = graph
        self.factor: _BlockFactor | None = None
        self.stale = False
        self.iterations = 0

    def refactor(self, weight: NDArray[np.float64], diagonal: NDArray[np.float64]) -> _BlockFactor:
        graph = self.graph
        self.factor = graph.chain.factor(weight[graph.exact_pairs], (diagonal + graph.pinned)[graph.order])
        self.stale = False
        return self.factor

    def step(
        self, gradient: NDArray[np.float64], weight: NDArray[np.float64], diagonal: NDArray[np.float64], rtol: float
    ) -> NDArray[np.float64]:
        graph = self.graph
        if self.stale:
            self.refactor(weight, diagonal)
        upper = graph.upper(weight)
        shape = (graph.n, graph.n)
        # Right-hand side and products are kept off the null space (the group means), where rounding would
        # otherwise pile up and stall the solve.
        hessian = scipy.sparse.linalg.LinearOperator(
            shape, matvec=lambda x: graph.centre(diagonal * x - upper @ x - upper.T @ x), dtype=np.float64
        )
        rhs = -graph.centre(gradient)
        exact_groups = len(graph.order) > 0
        first_try = _REFACTOR_AFTER if exact_groups and self.factor is None else _CG_MAX_ITERATIONS
        step, converged = self._cg(hessian, rhs, None, rtol, diagonal, first_try)
        if not converged and first_try < _CG_MAX_ITERATIONS:
            self.refactor(weight, diagonal)
            step, _ = self._cg(hessian, rhs, step, rtol, diagonal, _CG_MAX_ITERATIONS)
        return graph.centre(step)

    def _cg(
        self,
        hessian: scipy.sparse.linalg.LinearOperator,
        rhs: NDArray[np.float64],
        start: NDArray[np.float64] | None,
        rtol: float,
        diagonal: NDArray[np.float64],
        maxiter: int,
    ) -> tuple[NDArray[np.float64], bool]:
        graph, factor = self.graph, self.factor
        inverse_diagonal = np.divide(1.0, diagonal, out=np.zeros_like(diagonal), where=diagonal > 0)

        def precondition(r: NDArray[np.float64]) -> NDArray[np.float64]:
            z = r * inverse_diagonal
            if factor is not None:
                z[graph.order] = factor.solve(r[graph.order])
            return graph.centre(z)

        iterations = 0

        def count(_: NDArray[np.float64]) -> None:
            nonlocal iterations
            iterations += 1

        step, info = scipy.sparse.linalg.cg(
            hessian,
            rhs,
            x0=start,
            rtol=rtol,
            maxiter=maxiter,
            M=scipy.sparse.linalg.LinearOperator(hessian.shape, matvec=precondition, dtype=np.float64),
            callback=count,
        )
        if info < 0:
            raise RuntimeError(f"conjugate gradients broke down on the rating Hessian (info={info})")
        self.iterations += iterations
        self.stale = factor is not None and iterations > _REFACTOR_AFTER
        return step, info == 0


def _posterior_mode(posterior: _Posterior, initial: NDArray[np.float64]) -> _Mode:
    """Maximise the log-posterior from `initial`; the strengths, their variances and the pairs' covariances."""
    graph = posterior.graph
    n = graph.n
    theta = graph.centre(initial)
    solver = _NewtonSolver(graph)

    value = posterior.value(theta)
    size = previous_size = math.inf
    for _ in range(_MAX_ITERATIONS):
        gradient, weight, diagonal = posterior.derivatives(theta)
        rtol = min(_CG_TOLERANCE, max(_SMALLEST_CG_TOLERANCE, 1e-2 * size))
        step = solver.step(gradient, weight, diagonal, rtol)
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
        while (trial := posterior.value(theta + t * step)) > value - 1e-4 * t * decrement and t > 1e-10:
            t /= 2.0
        theta, value = theta + t * step, trial
    else:
        raise RuntimeError(f"rating fit did not converge in {_MAX_ITERATIONS} Newton iterations")

    # The last step was under a millionth of a standard error, so Newton's quadratic convergence leaves
    # ~1e-12; its conjugate gradients were solved to a hundredth of the step before. The Hessian here
    # (the Fisher information) gives the variances.
    theta = graph.centre(theta)
    _, weight, diagonal = posterior.derivatives(theta)
    factor = solver.refactor(weight, diagonal) if len(graph.order) else None

    variance = np.empty(n)
    covariance = np.full(len(graph.i), math.nan)
    if factor is not None:
        exact_variance, exact_covariance = _exact_variances(graph, factor)
        variance[graph.order] = exact_variance
        covariance[graph.exact_pairs] = exact_covariance
    estimated = ~graph.exact_player
    if estimated.any():
        variance[estimated] = _estimated_variances(graph, weight)[estimated]
    return _Mode(theta, np.maximum(variance, 0.0), graph.exact_player.copy(), covariance)


def _exact_variances(graph: _Graph, factor: _BlockFactor) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Variances (in ``order``) and pair covariances of the offsets from the group means, exact groups.

    The offset of i from its group's mean is e'theta with e = unit_i - u / m (u: the group's indicator,
    m its size). e is orthogonal to the gauge, so with H the Hessian whose group's first player is pinned (the
    block factor's), e' H^-1 e is its variance, and
    e' H^-1 e = (H^-1)_ii - 2 (H^-1 u)_i / m + u' H^-1 u / m^2; likewise for a pair's covariance. H is
    block-diagonal by group, so one solve against all-ones gives every group's H^-1 u.
    """
    order, group = graph.order, graph.group
    inverse_diagonal, inverse_pairs = factor.selected_inverse()
    ones_solved = np.zeros(graph.n)
    ones_solved[order] = factor.solve(np.ones(len(order)))
    size = graph.group_size[group]
    total = np.bincount(group, ones_solved)[group] / size**2
    share = ones_solved / size
    variance = inverse_diagonal - 2.0 * share[order] + total[order]
    i, j = graph.i[graph.exact_pairs], graph.j[graph.exact_pairs]
    covariance = inverse_pairs - share[i] - share[j] + total[i]
    return variance, covariance


def _estimated_variances(graph: _Graph, weight: NDArray[np.float64]) -> NDArray[np.float64]:
    """The diagonal of each estimated group's Laplacian pseudo-inverse, by its Neumann series to second order.

    With D the weighted degrees and W the weights, G = sum_k ((D^-1 W)^k - 1 pi') D^-1 (pi = D 1 / vol)
    is a generalised inverse of the Laplacian D - W, and the pseudo-inverse is its projection P G P onto
    the offsets from the mean (P = I - u u' / m). The terms k = 0, 1, 2 of G's diagonal and row sums are
    a few sparse products; on a well-connected group the next ones are smaller by the square root of the
    number of opponents each.
    """
    i, j, group, n = graph.i, graph.j, graph.group, graph.n
    degree = np.bincount(i, weight, n) + np.bincount(j, weight, n)
    inverse_degree = np.divide(1.0, degree, out=np.zeros(n), where=degree > 0)
    upper, squared = graph.upper(weight), graph.upper(weight**2)
    second = (squared @ inverse_degree + squared.T @ inverse_degree) * inverse_degree**2

    def walk(x: NDArray[np.float64]) -> NDArray[np.float64]:  # D^-1 W x
        return (upper @ x + upper.T @ x) * inverse_degree

    volume = np.bincount(group, degree)[group]
    size = graph.group_size[group]
    terms = 3.0  # the stationary part removed from each of the three terms
    g_diagonal = inverse_degree + second - terms / volume
    first = inverse_degree
    g_row_sums = first + walk(first) + walk(walk(first)) - terms * size / volume
    return g_diagonal - 2.0 * g_row_sums / size + np.bincount(group, g_row_sums)[group] / size**2
