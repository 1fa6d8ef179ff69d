"""The variances of the strengths' offsets from their group's mean: exact from the block factor, or estimated.

A group whose factor is cheap (graph.ESTIMATE_FIRST_FLOPS) is solved exactly. A dearer one is estimated first, and
the estimate is checked against exact values for a few of its players (`Check`): kept if every one is within
ESTIMATE_TOLERANCE, replaced by the exact solution otherwise while the factor is affordable (graph.EXACT_FLOPS_LIMIT).
Where it is not, a failing estimate gets the exact share of the group's slowest modes added, in rounds while they
help (`MODE_ROUNDS`; where a league pairs close ratings, the long walks along the ladder that the estimate misses),
and is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse.linalg
from numpy.typing import NDArray

from league.arena.ladder.bradley_terry.blocks import BlockFactor
from league.arena.ladder.bradley_terry.elimination import Reduction
from league.arena.ladder.bradley_terry.graph import Graph, Part
from league.arena.ladder.bradley_terry.refinement import Refinement

# An estimate is kept only if no checked player's interval half-width is off by more than this (relative): on the
# leagues of bench/ratings.py the largest error of the whole group stays within about 1.2 times the largest checked.
ESTIMATE_TOLERANCE = 0.025
# Players checked per estimated group: those whose random walk most often returns in two steps (where the estimate's
# missing terms weigh most), and as many spread over the rest.
RISKIEST_CHECKED = 8
SPREAD_CHECKED = 8
# And the players with the most games (a house bot that every new version meets): at 10,000 bots one whose walks
# rarely return in two steps was still off by 8 %, its opponents a clique of their own.
HUBS_CHECKED = 8
# The check's solves stop at this relative residual: a variance read from a conjugate-gradient iterate is off by
# about the residual squared (at 10,000 bots, 1e-3 and 1e-6 give the same largest error to 1e-5, in 0.12 s, not 0.31).
_CHECK_RTOL = 1e-3
_CHECK_MAX_ITERATIONS = 300
# The slow modes added to an estimate that fails its check where the factor is too dear. On bench/ratings.py's "mixed"
# league of 3,000 versions (90 % of opponents the nearest in strength) ten take the largest error from 5.0 % to
# 1.0 % (thirty: 0.1 %) in 0.02 s; at 20,000 versions, from 5.7 % to 2.1 % of the checked players in 0.4 s.
SLOW_MODES = 10
# How many are tried, in rounds: while the checked players are still off by more than ESTIMATE_TOLERANCE, and the
# last round cut their largest error to at most MODE_ROUND_GAIN of the round's before (more modes would help more).
# At 10,000 bots one mode (mu = 0.95: the house bots, whom every new version meets) takes the check's error from
# 8.6 % to 2.6 %, three to 2.5 %: the ten would cost 0.2 s for nothing the check sees (0.03 s and 0.08 s so).
MODE_ROUNDS = (1, 3, SLOW_MODES)
MODE_ROUND_GAIN = 0.9
_MODE_TOLERANCE = 1e-6
# Lanczos restarts at most: the mixed leagues need under 50, a long chain of close ratings (whose slow modes crowd
# together) hundreds, seconds at 20,000 versions. The modes found by then are used.
_MODE_RESTARTS = 100


def variances(
    graph: Graph,
    weight: NDArray[np.float64],
    diagonal: NDArray[np.float64],
    preconditioner: BlockFactor | None = None,
    warm: Solves | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64], Solves | None]:
    """Per player the variance of its offset and whether it is exact; per pair the covariance (NaN if estimated);
    and the check's solves (None without an estimate), where the next fit's check can start.

    ``weight`` is each pair's curvature and ``diagonal`` the Hessian's diagonal, at the optimum. ``preconditioner``,
    a block factor of the affordable groups (``graph.solvable``) at weights near these (Newton's last), speeds up
    the check's solves on them; so does ``warm``, the solves of a fit of nearly the same games (`Solves.carried`).
    """
    variance = np.empty(graph.n)
    covariance = np.full(len(graph.i), np.nan)
    exact_groups = graph.cheap.copy()
    solves = None
    if not exact_groups.all():
        # Groups without games (no volume) are cheap: the estimate divides by zero there.
        variance[:], failing, solves = estimate(graph, weight, ~graph.cheap, preconditioner, warm)
        exact_groups |= failing & graph.affordable
    if exact_groups.any():
        part = graph.part(exact_groups)
        factor = part.chain.factor(weight[part.pairs], (diagonal + part.pinned)[part.order])
        variance[part.order], covariance[part.pairs] = exact_variances(graph, part, factor)
    return variance, exact_groups[graph.group], covariance, solves


def estimate(
    graph: Graph,
    weight: NDArray[np.float64],
    groups: NDArray[np.bool_],
    preconditioner: BlockFactor | None = None,
    warm: Solves | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.bool_], Solves]:
    """Estimated variances of the groups marked in ``groups``, which of them fail their check, and the check's solves
    (``warm``: see `variances`).

    Short runs of few-opponent versions are eliminated first (`Reduction`), the series estimates the rest, and the
    rest's versions with few opponents are refined through their opponents (`Refinement`); a failing group too dear
    to factor gets its slow modes' share (the caller factors the affordable ones).
    """
    reduction = Reduction.of(graph, weight, groups)
    rest, rest_weight = reduction.graph, reduction.weight
    with np.errstate(divide="ignore", invalid="ignore"):  # the eliminated versions are alone in the rest
        series = Series(rest, rest_weight)
        rest_variance = series.diagonal()
    refinement = Refinement.of(series, groups[graph.group])
    variance = reduction.expand(refinement.apply(rest_variance), series.entries)
    # Risk is judged where the series ran: an eliminated version is exact given the rest (its walk, always back in two
    # steps on the whole graph, is gone from the rest's).
    check = Check.of(graph, weight, groups, preconditioner, two_step_returns(rest, rest_weight), warm)
    before = check.errors(variance)
    failing = groups & ~(before <= ESTIMATE_TOLERANCE)
    dear = failing & ~graph.affordable
    if dear.any():

        def corrected(modes: SlowModes) -> NDArray[np.float64]:
            return reduction.expand(
                refinement.apply(rest_variance + modes.diagonal(), modes),
                lambda a, b: series.entries(a, b) + modes.entries(a, b),
            )

        modes = SlowModes.of(rest, rest_weight, reduction.rest_groups(dear, graph), MODE_ROUNDS[0])
        variance = corrected(modes)
        for count in MODE_ROUNDS[1:]:
            after = check.errors(variance)
            again = dear & ~(after <= ESTIMATE_TOLERANCE) & (after <= MODE_ROUND_GAIN * before)
            if not again.any():
                break
            in_rest = reduction.rest_groups(again, graph)
            modes = modes.outside(in_rest).plus(SlowModes.of(rest, rest_weight, in_rest, count))
            variance, before = corrected(modes), after
    return variance, failing, check.solves


def exact_variances(graph: Graph, part: Part, factor: BlockFactor) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Variances (in ``part.order``) and covariances (of ``part.pairs``) of the offsets from the group means.

    The offset of i from its group's mean is e'theta with e = unit_i - u / m (u: the group's indicator,
    m its size). e is orthogonal to the gauge, so with H the Hessian whose group's first player is pinned (the
    block factor's), e' H^-1 e is its variance, and
    e' H^-1 e = (H^-1)_ii - 2 (H^-1 u)_i / m + u' H^-1 u / m^2; likewise for a pair's covariance. H is
    block-diagonal by group, so one solve against all-ones gives every group's H^-1 u.
    """
    order, group = part.order, graph.group
    inverse_diagonal, inverse_pairs = factor.selected_inverse()
    ones_solved = np.zeros(graph.n)
    ones_solved[order] = factor.solve(np.ones(len(order)))
    size = graph.group_size[group]
    total = np.bincount(group, ones_solved)[group] / size**2
    share = ones_solved / size
    variance = inverse_diagonal - 2.0 * share[order] + total[order]
    i, j = graph.i[part.pairs], graph.j[part.pairs]
    covariance = inverse_pairs - share[i] - share[j] + total[i]
    return variance, covariance


class Series:
    """The Neumann series' estimate of each group's Laplacian pseudo-inverse, to second order: its diagonal, and any
    entry asked for.

    With D the weighted degrees and W the weights, G = sum_k ((D^-1 W)^k - 1 pi') D^-1 (pi = D 1 / vol)
    is a generalised inverse of the Laplacian D - W, and the pseudo-inverse is its projection P G P onto
    the offsets from the mean (P = I - u u' / m). The terms k = 0, 1, 2 of G's diagonal and row sums are
    a few sparse products; on a well-connected group the next ones are smaller by the square root of the
    number of opponents each.
    """

    TERMS = 3.0  # the stationary part removed from each of the three terms

    def __init__(self, graph: Graph, weight: NDArray[np.float64]) -> None:
        group, n = graph.group, graph.n
        self.degree = graph.degree(weight)
        self.inverse_degree = np.divide(1.0, self.degree, out=np.zeros(n), where=self.degree > 0)
        self.upper = graph.upper(weight)
        self.volume = np.bincount(group, self.degree)[group]
        self.size = graph.group_size[group]
        first = self.inverse_degree
        self.row_sums = first + self._walk(first) + self._walk(self._walk(first)) - self.TERMS * self.size / self.volume
        self.group_row_sums = np.bincount(group, self.row_sums)[group]

    def _walk(self, x: NDArray[np.float64]) -> NDArray[np.float64]:  # D^-1 W x
        return (self.upper @ x + self.upper.T @ x) * self.inverse_degree

    def _projected(self, g: NDArray[np.float64], a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.float64]:
        size = self.size[a]
        return g - self.row_sums[a] / size - self.row_sums[b] / size + self.group_row_sums[a] / size**2

    def diagonal(self) -> NDArray[np.float64]:
        squared = self.upper.multiply(self.upper)
        inverse = self.inverse_degree
        second = (squared @ inverse + squared.T @ inverse) * inverse**2
        g = inverse + second - self.TERMS / self.volume
        every = np.arange(len(g))
        return self._projected(g, every, every)

    @cached_property
    def symmetric(self) -> scipy.sparse.csr_array:
        """The weights both ways (W), as CSR: built once, for every batch of entries and the refinement."""
        return (self.upper + self.upper.T).tocsr()

    def entries(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.float64]:
        """Entries (a[k], b[k]) for a[k] != b[k] in one group."""
        both = self.symmetric
        first = both[a, b]
        second = (both[a] @ scipy.sparse.diags_array(self.inverse_degree)).multiply(both[b]).sum(axis=1)
        g = (first + second) * self.inverse_degree[a] * self.inverse_degree[b] - self.TERMS / self.volume[a]
        return self._projected(g, a, b)


def estimated_variances(graph: Graph, weight: NDArray[np.float64]) -> NDArray[np.float64]:
    """The diagonal of each group's Laplacian pseudo-inverse by the Neumann series (`Series`)."""
    return Series(graph, weight).diagonal()


@dataclass(frozen=True)
class SlowModes:
    """What the series misses of the slowest modes of some groups: x x' mu^3 / (1 - mu) per mode.

    With A = D^-1/2 W D^-1/2 (eigenvalues mu, unit eigenvectors v, mu = 1 for the stationary one) and x = D^-1/2 v,
    the pseudo-inverse is the sum over the other modes of x x' / (1 - mu), of which the series' three terms keep
    x x' (1 + mu + mu^2): each mode's missing share is mu^3 / (1 - mu) x x', large only where mu is close to 1.
    Lanczos (ARPACK) from the all-ones vector, so the same games give the same numbers however the players are
    numbered.
    """

    vectors: NDArray[np.float64]  # n x modes: x minus its group's mean, 0 outside its group
    shares: NDArray[np.float64]  # mu^3 / (1 - mu) per mode
    group: NDArray[np.int64]  # per mode

    @classmethod
    def of(
        cls, graph: Graph, weight: NDArray[np.float64], groups: NDArray[np.bool_], count: int = SLOW_MODES
    ) -> SlowModes:
        """The ``count`` slowest modes of each group marked in ``groups``."""
        n = graph.n
        degree = graph.degree(weight)
        scale = np.divide(1.0, np.sqrt(degree), out=np.zeros(n), where=degree > 0)
        vectors, shares, owners = [np.zeros((n, 0))], [np.zeros(0)], [np.zeros(0, dtype=np.int64)]
        for group in np.flatnonzero(groups):
            players = np.flatnonzero(graph.group == group)
            if len(players) <= SLOW_MODES + 2:
                continue  # too small to be dear to factor: never estimated
            x, mu = _slowest(graph, weight, players, scale[players], count)
            column = np.zeros((n, x.shape[1]))
            column[players] = x - x.mean(axis=0)
            vectors.append(column)
            shares.append(mu**3 / (1.0 - mu))
            owners.append(np.full(len(mu), group))
        return cls(np.hstack(vectors), np.concatenate(shares), np.concatenate(owners))

    def outside(self, groups: NDArray[np.bool_]) -> SlowModes:
        """These modes but those of the groups marked in ``groups``."""
        kept = ~groups[self.group]
        return SlowModes(self.vectors[:, kept], self.shares[kept], self.group[kept])

    def plus(self, other: SlowModes) -> SlowModes:
        return SlowModes(
            np.hstack([self.vectors, other.vectors]),
            np.concatenate([self.shares, other.shares]),
            np.concatenate([self.group, other.group]),
        )

    def diagonal(self) -> NDArray[np.float64]:
        return self.vectors**2 @ self.shares

    def entries(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.float64]:
        return (self.vectors[a] * self.vectors[b]) @ self.shares


def _slowest(
    graph: Graph, weight: NDArray[np.float64], players: NDArray[np.int64], scale: NDArray[np.float64], count: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One group's ``count`` slowest modes but the stationary one: x = D^-1/2 v (a column each) and mu."""
    inside = np.isin(graph.i, players)
    local = np.full(graph.n, -1)
    local[players] = np.arange(len(players))
    size = (len(players), len(players))
    upper = scipy.sparse.csr_array((weight[inside], (local[graph.i[inside]], local[graph.j[inside]])), shape=size)
    walk = scipy.sparse.diags_array(scale) @ (upper + upper.T) @ scipy.sparse.diags_array(scale)
    try:
        mu, v = scipy.sparse.linalg.eigsh(
            walk,
            k=count + 1,
            which="LA",
            tol=_MODE_TOLERANCE,
            v0=np.ones(len(players)),
            maxiter=_MODE_RESTARTS,
        )
    except scipy.sparse.linalg.ArpackNoConvergence as partial:
        mu, v = partial.eigenvalues, partial.eigenvectors
    slow = mu < 1.0 - 1e-9  # all but the stationary mode (mu = 1)
    return v[:, slow] * scale[:, None], mu[slow]


def slow_mode_correction(graph: Graph, weight: NDArray[np.float64], groups: NDArray[np.bool_]) -> NDArray[np.float64]:
    """What the series misses of the slow modes (`SlowModes`) of the groups marked in ``groups``, on the diagonal."""
    return SlowModes.of(graph, weight, groups).diagonal()


@dataclass(frozen=True)
class Check:
    """Exact variances, by conjugate gradients, of a few players of each checked group: what an estimate of those
    groups is judged by."""

    players: NDArray[np.int64]
    exact: NDArray[np.float64]  # NaN where the solve did not converge
    group: NDArray[np.int64]  # of each checked player
    groups: int
    solves: Solves

    @classmethod
    def of(
        cls,
        graph: Graph,
        weight: NDArray[np.float64],
        groups: NDArray[np.bool_],
        preconditioner: BlockFactor | None = None,
        risk: NDArray[np.float64] | None = None,
        warm: Solves | None = None,
    ) -> Check:
        """Checks of the groups marked in ``groups``: their riskiest players and some spread over the rest.

        Risk is how often a player's random walk returns in two steps (`returns`) unless ``risk`` says otherwise. The
        players are chosen by their place in the graph, not by their numbering, so the same games give the same choice
        whatever order their players are listed in (but for exact ties). ``preconditioner``, ``warm``: see
        `variances`; a solve starts from ``warm``'s of the same player, which a few more games leave within the
        check's tolerance (at 10,000 bots, after 40 more pairs' games: no iteration instead of a dozen).
        """
        n = graph.n
        degree = graph.degree(weight)
        returns = two_step_returns(graph, weight) if risk is None else risk
        members = [np.flatnonzero(graph.group == g) for g in np.flatnonzero(groups)]
        players = np.concatenate(
            [_checked_players(group, returns, degree) for group in members] or [np.zeros(0, np.int64)]
        )
        rhs = np.zeros((n, len(players)))
        rhs[players, np.arange(len(players))] = 1.0
        rhs = graph.centre(rhs)  # e_p minus its group's mean: the offset's direction
        start = None if warm is None else graph.centre(warm.start(players, n))
        solution, converged = _laplacian_solve(graph, weight, degree, rhs, preconditioner, start)
        exact = np.where(converged, np.einsum("ij,ij->j", rhs, solution), np.nan)
        return cls(players, exact, graph.group[players], len(groups), Solves(players, solution))

    def errors(self, estimate: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per group, the largest relative error of the estimated half-widths (square roots of ``estimate``) of its
        checked players (infinite where a solve did not converge); NaN for a group not checked."""
        error = np.abs(np.sqrt(estimate[self.players] / self.exact) - 1.0)
        error[np.isnan(self.exact)] = np.inf
        worst = np.full(self.groups, np.nan)
        np.fmax.at(worst, self.group, error)
        return worst


@dataclass(frozen=True)
class Solves:
    """The check's exact solves of one fit (a column per checked player): where the next fit's check starts."""

    players: NDArray[np.int64]
    solution: NDArray[np.float64]  # players' rows by index, a column per checked player

    def start(self, players: NDArray[np.int64], n: int) -> NDArray[np.float64]:
        """Where the solves of ``players`` start: this solve of the same player, zero for one not solved here."""
        start = np.zeros((n, len(players)))
        known, column = np.isin(players, self.players), np.searchsorted(self.players, players)
        start[:, known] = self.solution[:, column[known]]
        return start

    def carried(self, new_index: NDArray[np.int64], n: int) -> Solves:
        """These solves in another fit's numbering (``new_index``: each player's index there, -1 if it is not in it;
        ``n`` players there, zero for those not here)."""
        kept = new_index[self.players] >= 0
        order = np.argsort(new_index[self.players[kept]])
        solution = np.zeros((n, int(kept.sum())))
        present = new_index >= 0
        solution[new_index[present]] = self.solution[present][:, kept][:, order]
        return Solves(new_index[self.players[kept]][order], solution)


def estimate_errors(
    graph: Graph, weight: NDArray[np.float64], estimate: NDArray[np.float64], groups: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Per group marked in ``groups``, the largest relative error of ``estimate``'s half-widths on its checked
    players (see `Check`); NaN for the other groups."""
    return Check.of(graph, weight, groups).errors(estimate)


def two_step_returns(graph: Graph, weight: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per player, how likely its random walk is back after two steps: where the series' missing terms weigh most."""
    n = graph.n
    degree = graph.degree(weight)
    inverse_degree = np.divide(1.0, degree, out=np.zeros(n), where=degree > 0)
    squared = graph.upper(weight**2)
    return (squared @ inverse_degree + squared.T @ inverse_degree) * inverse_degree


def _checked_players(
    players: NDArray[np.int64], returns: NDArray[np.float64], degree: NDArray[np.float64]
) -> NDArray[np.int64]:
    by_risk = players[np.argsort(-returns[players], kind="stable")]
    spread = np.linspace(RISKIEST_CHECKED, len(by_risk) - 1, SPREAD_CHECKED).astype(np.int64)
    hubs = players[np.argsort(-degree[players], kind="stable")[:HUBS_CHECKED]]
    return np.unique(np.concatenate([by_risk[:RISKIEST_CHECKED], by_risk[spread[spread >= RISKIEST_CHECKED]], hubs]))


def _laplacian_solve(
    graph: Graph,
    weight: NDArray[np.float64],
    degree: NDArray[np.float64],
    rhs: NDArray[np.float64],
    factor: BlockFactor | None = None,
    start: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Solve the weighted Laplacian for each column of ``rhs`` (each summing to 0 over every group) by conjugate
    gradients, all columns at once; and which columns converged. Preconditioned by the degrees, and by ``factor``
    (of ``graph.solvable``) on the groups it covers: on a long chain of close ratings the degrees alone leave
    hundreds of iterations (16 s of them at 100,000 versions), the factor a few. ``start``: where the solutions
    start (zero without it; centred like ``rhs``)."""
    upper = graph.upper(weight)
    # One symmetric matrix: a product with its CSR form is half the time of one with the upper triangle and its
    # transpose (a CSC product) for these 16-24 columns.
    matrix = (scipy.sparse.diags_array(degree) - upper - upper.T).tocsr()
    inverse_degree = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)[:, None]
    order = graph.solvable.order if factor is not None else None

    def laplacian(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return graph.centre(matrix @ x)

    def precondition(r: NDArray[np.float64]) -> NDArray[np.float64]:
        z = r * inverse_degree
        if factor is not None:
            z[order] = factor.solve(r[order])
        return graph.centre(z)

    solution = np.zeros_like(rhs) if start is None else start.copy()
    residual = rhs.copy() if start is None else rhs - laplacian(start)
    goal = _CHECK_RTOL * np.linalg.norm(rhs, axis=0)
    converged = np.linalg.norm(residual, axis=0) <= goal
    # Each column is a solve of its own: one that converged leaves the products (a refit's warm start leaves most
    # converged at once, and the few players newly checked are solved alone).
    active = np.flatnonzero(~converged)
    if not active.size:
        return solution, converged
    x, r, goal = solution[:, active], residual[:, active], goal[active]
    z = precondition(r)
    direction, product = z.copy(), np.einsum("ij,ij->j", r, z)
    for _ in range(_CHECK_MAX_ITERATIONS):
        image = laplacian(direction)
        curvature = np.einsum("ij,ij->j", direction, image)
        step = np.divide(product, curvature, out=np.zeros_like(product), where=curvature > 0)
        x += step * direction
        r -= step * image
        done = np.linalg.norm(r, axis=0) <= goal
        if done.any():
            solution[:, active[done]], converged[active[done]] = x[:, done], True
            left = ~done
            active, x, r, goal = active[left], x[:, left], r[:, left], goal[left]
            direction, product = direction[:, left], product[left]
            if not active.size:
                break
        z = precondition(r)
        next_product = np.einsum("ij,ij->j", r, z)
        ratio = np.divide(next_product, product, out=np.zeros_like(product), where=product > 0)
        direction = z + ratio * direction
        product = next_product
    solution[:, active] = x  # as far as they got
    return solution, converged
