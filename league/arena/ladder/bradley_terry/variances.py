"""The variances of the strengths' offsets from their group's mean: exact from the block factor, or estimated.

A group whose factor is cheap (graph.ESTIMATE_FIRST_FLOPS) is solved exactly. A dearer one is estimated first, and
the estimate is checked against exact values for a few of its players (`estimate_errors`): kept if every one is
within ESTIMATE_TOLERANCE, replaced by the exact solution otherwise. A group whose factor cannot be afforded at all
(graph.EXACT_FLOPS_LIMIT) keeps its estimate unchecked: exact values would be no cheaper to check it against.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from league.arena.ladder.bradley_terry.blocks import BlockFactor
from league.arena.ladder.bradley_terry.graph import Graph, Part

# An estimate is kept only if no checked player's interval half-width is off by more than this (relative): on the
# leagues of bench/ratings.py the largest error of the whole group stays within about 1.2 times the largest checked.
ESTIMATE_TOLERANCE = 0.025
# Players checked per estimated group: those whose random walk most often returns in two steps (where the estimate's
# missing terms weigh most), and as many spread over the rest.
RISKIEST_CHECKED = 8
SPREAD_CHECKED = 8
_CHECK_RTOL = 1e-6
_CHECK_MAX_ITERATIONS = 300


def variances(
    graph: Graph, weight: NDArray[np.float64], diagonal: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """Per player the variance of its offset and whether it is exact; per pair the covariance (NaN if estimated).

    ``weight`` is each pair's curvature and ``diagonal`` the Hessian's diagonal, at the optimum.
    """
    variance = np.empty(graph.n)
    covariance = np.full(len(graph.i), np.nan)
    exact_groups = graph.cheap.copy()
    if not exact_groups.all():
        # Groups without games (no volume) are cheap: whatever the estimate divides by zero for them is not kept.
        with np.errstate(divide="ignore", invalid="ignore"):
            variance[:] = estimated_variances(graph, weight)
        checked = graph.affordable & ~graph.cheap
        if checked.any():
            exact_groups |= checked & ~(estimate_errors(graph, weight, variance, checked) <= ESTIMATE_TOLERANCE)
    if exact_groups.any():
        part = graph.part(exact_groups)
        factor = part.chain.factor(weight[part.pairs], (diagonal + part.pinned)[part.order])
        variance[part.order], covariance[part.pairs] = exact_variances(graph, part, factor)
    return variance, exact_groups[graph.group], covariance


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


def estimated_variances(graph: Graph, weight: NDArray[np.float64]) -> NDArray[np.float64]:
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


def estimate_errors(
    graph: Graph, weight: NDArray[np.float64], estimate: NDArray[np.float64], groups: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Per group marked in ``groups``, the largest relative error of the estimated half-widths (square roots of
    ``estimate``) of its checked players against exact values from conjugate gradients (infinite where those do not
    converge); NaN for the other groups.

    The players are chosen by their place in the graph, not by their numbering, so the same games give the same
    choice whatever order their players are listed in (but for exact ties).
    """
    n = graph.n
    degree = np.bincount(graph.i, weight, n) + np.bincount(graph.j, weight, n)
    inverse_degree = np.divide(1.0, degree, out=np.zeros(n), where=degree > 0)
    squared = graph.upper(weight**2)
    returns = (squared @ inverse_degree + squared.T @ inverse_degree) * inverse_degree  # in two steps
    players = [np.flatnonzero(graph.group == g) for g in np.flatnonzero(groups)]
    checked = np.concatenate([_checked_players(group, returns) for group in players])
    rhs = np.zeros((n, len(checked)))
    rhs[checked, np.arange(len(checked))] = 1.0
    rhs = graph.centre(rhs)  # e_p minus its group's mean: the offset's direction
    solution, converged = _laplacian_solve(graph, weight, degree, rhs)
    exact = np.einsum("ij,ij->j", rhs, solution)
    error = np.where(converged, np.abs(np.sqrt(estimate[checked] / exact) - 1.0), np.inf)
    worst = np.full(len(groups), np.nan)
    np.fmax.at(worst, graph.group[checked], error)
    return worst


def _checked_players(players: NDArray[np.int64], returns: NDArray[np.float64]) -> NDArray[np.int64]:
    by_risk = players[np.argsort(-returns[players], kind="stable")]
    spread = np.linspace(RISKIEST_CHECKED, len(by_risk) - 1, SPREAD_CHECKED).astype(np.int64)
    return np.unique(np.concatenate([by_risk[:RISKIEST_CHECKED], by_risk[spread[spread >= RISKIEST_CHECKED]]]))


def _laplacian_solve(
    graph: Graph, weight: NDArray[np.float64], degree: NDArray[np.float64], rhs: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Solve the weighted Laplacian for each column of ``rhs`` (each summing to 0 over every group) by conjugate
    gradients preconditioned by the degrees, all columns at once; and which columns converged."""
    upper = graph.upper(weight)
    inverse_degree = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)[:, None]

    def laplacian(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return graph.centre(degree[:, None] * x - upper @ x - upper.T @ x)

    solution = np.zeros_like(rhs)
    residual = rhs.copy()
    goal = _CHECK_RTOL * np.linalg.norm(rhs, axis=0)
    preconditioned = graph.centre(residual * inverse_degree)
    direction = preconditioned.copy()
    product = np.einsum("ij,ij->j", residual, preconditioned)
    converged = np.linalg.norm(residual, axis=0) <= goal
    for _ in range(_CHECK_MAX_ITERATIONS):
        if converged.all():
            break
        image = laplacian(direction)
        curvature = np.einsum("ij,ij->j", direction, image)
        step = np.divide(product, curvature, out=np.zeros_like(product), where=~converged & (curvature > 0))
        solution += step * direction
        residual -= step * image
        converged |= np.linalg.norm(residual, axis=0) <= goal
        preconditioned = graph.centre(residual * inverse_degree)
        next_product = np.einsum("ij,ij->j", residual, preconditioned)
        ratio = np.divide(next_product, product, out=np.zeros_like(product), where=product > 0)
        direction = preconditioned + ratio * direction
        product = next_product
    return solution, converged
