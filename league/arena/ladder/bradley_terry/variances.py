"""The variances of the strengths' offsets from their group's mean: exact from the block factor, or estimated."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from league.arena.ladder.bradley_terry.blocks import BlockFactor
from league.arena.ladder.bradley_terry.graph import Graph


def exact_variances(graph: Graph, factor: BlockFactor) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
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
