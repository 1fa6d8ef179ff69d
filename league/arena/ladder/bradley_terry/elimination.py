"""Versions with few opponents taken out of an estimated group exactly, before the rest is estimated.

A version that met only a few opponents, or a short run of such versions that met each other (a bot's versions
superseded after a match or two, hanging off the ladder), is where the series of `variances` goes most wrong: a walk
from it keeps coming back, and the series leaves those long returns out (at 10,000 bots, errors up to 58 % on such
versions). Given the rest, such a run K is normal with mean L_KK^-1 W_KB theta_B (B: the versions it met outside
it) and covariance L_KK^-1, and integrating it out leaves the rest a Laplacian again, with the Schur complement's
fill-in between the versions of B (at most a few dozen pairs per run). So the rest is estimated on that reduced
graph, and each eliminated version's variance is

    (L_KK^-1)_pp + r_p' Cov(theta_B) r_p,    r_p = row p of L_KK^-1 W_KB (it sums to 1),

from the estimate's variances and covariances of B. The offsets are from the mean of the rest rather than of the
whole group: a relative difference of about twice a run's length over the group's size (0.1 % at 10,000 bots; only
groups of hundreds of versions are estimated).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
from numpy.typing import NDArray

from league.arena.ladder.bradley_terry.graph import Graph

# A version is taken out if it met at most this many opponents and its run (such versions that met each other)
# has at most LARGEST_RUN of them. At 10,000 bots, 3 left the worst error of versions with few opponents at 1.3 %;
# 4 and 5 crowd the rest with fill-in (6-9 %).
FEW_OPPONENTS = 3
LARGEST_RUN = 8
# A group keeps at least this many versions to estimate; one made of nothing but short runs is left whole.
SMALLEST_REST = 3

Covariances = Callable[[NDArray[np.int64], NDArray[np.int64]], NDArray[np.float64]]


@dataclass(frozen=True)
class _Runs:
    """Eliminated runs of one length m, N of them, with at most b versions met outside each."""

    members: NDArray[np.int64]  # N x m
    inverse_diagonal: NDArray[np.float64]  # N x m: (L_KK^-1)_pp
    reach: NDArray[np.float64]  # N x m x b: L_KK^-1 W_KB, 0 in unused columns
    boundary: NDArray[np.int64]  # N x b: the versions met outside, -1 in unused columns
    pairs: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]  # run, column x < column y, both used


@dataclass(frozen=True)
class Reduction:
    """A graph with its short runs of few-opponent versions eliminated (`of`), and the way back (`expand`)."""

    graph: Graph  # the rest: the eliminated versions have no pairs left in it
    weight: NDArray[np.float64]
    eliminated: NDArray[np.bool_]
    runs: list[_Runs]

    @classmethod
    def of(cls, graph: Graph, weight: NDArray[np.float64], groups: NDArray[np.bool_]) -> Reduction:
        """Eliminate the short runs of few-opponent versions in the groups marked in ``groups``."""
        n, i, j = graph.n, graph.i, graph.j
        opponents = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
        few = (opponents > 0) & (opponents <= FEW_OPPONENTS) & groups[graph.group]
        inner = few[i] & few[j]
        links = scipy.sparse.coo_array((np.ones(int(inner.sum())), (i[inner], j[inner])), shape=(n, n))
        _, run = scipy.sparse.csgraph.connected_components(links, directed=False)
        run_length = np.bincount(run, few.astype(np.float64))
        out = few & (run_length[run] <= LARGEST_RUN)
        rest = np.bincount(graph.group, ~out & (opponents > 0), len(graph.group_size))
        out &= rest[graph.group] >= SMALLEST_REST
        if not out.any():
            return cls(graph, weight, out, [])
        degree = graph.degree(weight)
        runs, fill = _eliminate(graph, weight, degree, out, run)
        kept = ~(out[i] | out[j])
        rest_graph, rest_weight = _graph_of(
            n, np.r_[i[kept], fill[0]], np.r_[j[kept], fill[1]], np.r_[weight[kept], fill[2]]
        )
        return cls(rest_graph, rest_weight, out, runs)

    def rest_groups(self, groups: NDArray[np.bool_], graph: Graph) -> NDArray[np.bool_]:
        """The groups of the rest that hold the versions of ``graph``'s groups marked in ``groups``."""
        marked = np.zeros(len(self.graph.group_size), dtype=bool)
        marked[self.graph.group[groups[graph.group] & ~self.eliminated]] = True
        return marked

    def expand(self, variance: NDArray[np.float64], covariance: Covariances) -> NDArray[np.float64]:
        """Every version's variance from the rest's (``variance``, and ``covariance`` of pairs of versions of the rest:
        two index arrays in, one covariance per pair out)."""
        full = variance.copy()
        for runs in self.runs:
            met = np.where(runs.boundary >= 0, runs.boundary, 0)
            among = np.zeros((len(met), met.shape[1], met.shape[1]))
            column = np.arange(met.shape[1])
            among[:, column, column] = np.where(runs.boundary >= 0, variance[met], 0.0)
            run, x, y = runs.pairs
            if len(run):
                between = covariance(met[run, x], met[run, y])
                among[run, x, y] = between
                among[run, y, x] = between
            full[runs.members] = runs.inverse_diagonal + np.einsum("nmx,nxy,nmy->nm", runs.reach, among, runs.reach)
        return full


def _eliminate(
    graph: Graph,
    weight: NDArray[np.float64],
    degree: NDArray[np.float64],
    out: NDArray[np.bool_],
    run: NDArray[np.int64],
) -> tuple[list[_Runs], tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]]:
    """The eliminated runs, batched by length, and the fill-in they leave among the versions they met."""
    i, j = graph.i, graph.j
    members = np.flatnonzero(out)
    labels, run_of, lengths = np.unique(run[members], return_inverse=True, return_counts=True)
    # Each member's place: its run (numbered 0..) and its index within the run.
    by_run = np.argsort(run_of, kind="stable")
    position = np.empty(len(members), dtype=np.int64)
    position[by_run] = np.arange(len(members)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    index = np.full(graph.n, -1)
    index[members] = np.arange(len(members))

    touching = out[i] | out[j]
    inside = out[i] & out[j]
    edge_i, edge_j, edge_w = i[touching & ~inside], j[touching & ~inside], weight[touching & ~inside]
    member = np.where(out[edge_i], edge_i, edge_j)
    met = np.where(out[edge_i], edge_j, edge_i)
    # The versions each run met outside it, numbered within the run.
    member_run = run_of[index[member]]
    keys, slot_of_edge = np.unique(member_run * graph.n + met, return_inverse=True)
    key_run = keys // graph.n
    slot_start = np.searchsorted(key_run, np.arange(len(labels)))
    slots = np.bincount(key_run, minlength=len(labels))
    slot = np.arange(len(keys)) - slot_start[key_run]

    runs, fills = [], []
    for length in np.unique(lengths):
        chosen = np.flatnonzero(lengths == length)
        place = np.full(len(labels), -1)
        place[chosen] = np.arange(len(chosen))
        width = int(slots[chosen].max())
        run_members = np.empty((len(chosen), length), dtype=np.int64)
        mine = place[run_of] >= 0
        run_members[place[run_of[mine]], position[mine]] = members[mine]

        hessian = np.zeros((len(chosen), length, length))
        hessian[place[run_of[mine]], position[mine], position[mine]] = degree[members[mine]]
        both = np.flatnonzero(inside)
        both = both[place[run_of[index[i[both]]]] >= 0]
        r, a, b = place[run_of[index[i[both]]]], position[index[i[both]]], position[index[j[both]]]
        np.add.at(hessian, (r, a, b), -weight[both])
        np.add.at(hessian, (r, b, a), -weight[both])

        boundary = np.full((len(chosen), width), -1)
        key_mine = place[key_run] >= 0
        boundary[place[key_run[key_mine]], slot[key_mine]] = keys[key_mine] % graph.n
        outward = np.zeros((len(chosen), length, width))
        edge_mine = place[member_run] >= 0
        np.add.at(
            outward,
            (place[member_run[edge_mine]], position[index[member[edge_mine]]], slot[slot_of_edge[edge_mine]]),
            edge_w[edge_mine],
        )

        inverse = np.linalg.inv(hessian)
        reach = inverse @ outward
        schur = np.transpose(outward, (0, 2, 1)) @ reach
        x, y = np.triu_indices(width, 1)
        run_index, pair = np.nonzero((boundary[:, x] >= 0) & (boundary[:, y] >= 0))
        pairs = (run_index, x[pair], y[pair])
        first, second = boundary[run_index, x[pair]], boundary[run_index, y[pair]]
        fills.append((np.minimum(first, second), np.maximum(first, second), schur[pairs]))
        inverse_diagonal = np.diagonal(inverse, axis1=1, axis2=2).copy()
        runs.append(_Runs(run_members, inverse_diagonal, reach, boundary, pairs))
    fill = tuple(np.concatenate([f[k] for f in fills]) for k in range(3))
    return runs, fill  # type: ignore[return-value]


def _graph_of(
    n: int, i: NDArray[np.int64], j: NDArray[np.int64], weight: NDArray[np.float64]
) -> tuple[Graph, NDArray[np.float64]]:
    """The graph of these pairs (i < j, repeats summed), sorted as Graph wants them, and its weights."""
    upper = scipy.sparse.csr_array((weight, (i, j)), shape=(n, n))
    upper.sum_duplicates()
    upper.sort_indices()
    rows = np.repeat(np.arange(n), np.diff(upper.indptr))
    return Graph(n, rows.astype(np.int64), upper.indices.astype(np.int64)), upper.data
