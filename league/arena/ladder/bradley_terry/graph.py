"""Who met whom: the pairs as a sparse pattern, cut into connected groups, each solved exactly or estimated."""

from __future__ import annotations

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
from numpy.typing import NDArray

from league.arena.ladder.bradley_terry.blocks import BlockChain, block_flops, block_starts, reach

# A group's variances are exact while its block factor and inversion cost at most this many
# floating-point operations (a dense group of ~1,700 players, or a band of any length) and its blocks
# hold at most this many numbers; past either, they are estimated.
EXACT_FLOPS_LIMIT = 1e10
EXACT_ENTRIES_LIMIT = 4e7


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


class Graph:
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
        self.chain = BlockChain(self.order, i[self.exact_pairs], j[self.exact_pairs], n)
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
        if len(self.group_size) == 1:  # the usual ladder, one group: a third of the time of the general case
            return theta - theta.mean()
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
    starts = block_starts(reach(np.minimum(pi, pj), np.maximum(pi, pj), len(rcm)), end_of)
    sizes = np.diff(starts).astype(np.float64)
    following = np.append(sizes[1:], 0.0)
    following[np.append(grouped[starts[1:-1]] != grouped[starts[:-2]], True)] = 0.0
    block_group = grouped[starts[:-1]]
    groups = int(group.max()) + 1 if len(group) else 0
    flops = np.bincount(block_group, block_flops(sizes, following), groups)
    entries = np.bincount(block_group, sizes * (sizes + following), groups)
    return (flops <= EXACT_FLOPS_LIMIT) & (entries <= EXACT_ENTRIES_LIMIT)
