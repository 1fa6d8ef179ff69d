"""Who met whom: the pairs as a sparse pattern, cut into connected groups, each solved exactly or estimated."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

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
# Past this many (a dense group of ~800 players, ~50 ms on one core), a group's variances are estimated first, and
# the estimate kept if it passes its check against exact values (variances.estimate_errors); otherwise, and for
# every cheaper group, they come from the block factor.
ESTIMATE_FIRST_FLOPS = 1e9


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


@dataclass(frozen=True)
class Part:
    """Some groups of a graph solved by a block factor.

    ``order`` lists their players group by group in reverse Cuthill-McKee order, ``pairs`` indexes their pairs,
    ``chain`` cuts ``order`` into blocks such that every pair lies within one block or two neighbouring ones, and
    ``pinned`` is +1 on each group's first player: the factor is of the Hessian plus ``pinned`` on its diagonal,
    full rank and, for a right-hand side whose group sums are 0, the same solution up to a shift.
    """

    order: NDArray[np.int64]
    pairs: NDArray[np.int64]
    chain: BlockChain
    pinned: NDArray[np.float64]


class Graph:
    """Who met whom, cut into connected groups, and what solving each group exactly would cost.

    A group is ``affordable`` while its block factor costs at most EXACT_FLOPS_LIMIT (and EXACT_ENTRIES_LIMIT), and
    ``cheap`` while it costs at most ESTIMATE_FIRST_FLOPS.
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
        self.first_player = np.unique(self.group, return_index=True)[1]
        # Each group comes out of reverse Cuthill-McKee in one piece.
        self.rcm = scipy.sparse.csgraph.reverse_cuthill_mckee(pattern, symmetric_mode=True).astype(np.int64)
        flops, entries = _group_costs(self.rcm, self.group, i, j)
        self.affordable = (flops <= EXACT_FLOPS_LIMIT) & (entries <= EXACT_ENTRIES_LIMIT)
        self.cheap = self.affordable & (flops <= ESTIMATE_FIRST_FLOPS)

    @cached_property
    def solvable(self) -> Part:
        """Every affordable group: what Newton's method may precondition with the block factor."""
        return self.part(self.affordable)

    def part(self, groups: NDArray[np.bool_]) -> Part:
        """The groups marked in ``groups`` (one flag per group), to be solved by a block factor."""
        if np.array_equal(groups, self.affordable) and "solvable" in self.__dict__:
            return self.solvable
        player = groups[self.group]
        order = self.rcm[player[self.rcm]]
        pairs = np.flatnonzero(player[self.i])
        pinned = np.zeros(self.n)
        pinned[self.first_player[groups]] = 1.0
        return Part(order, pairs, BlockChain(order, self.i[pairs], self.j[pairs], self.n), pinned)

    def degree(self, weight: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per player the sum of its pairs' weights."""
        return np.bincount(self.i, weight, self.n) + np.bincount(self.j, weight, self.n)

    def upper(self, weight: NDArray[np.float64]) -> scipy.sparse.csr_array:
        """The pairs' weights as the upper triangle of a sparse matrix (no copy)."""
        return scipy.sparse.csr_array((weight, self.upper_columns, self.upper_indptr), shape=(self.n, self.n))

    def centre(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """Each group's mean subtracted (from each column, for a matrix)."""
        if len(self.group_size) == 1:  # the usual ladder, one group: a third of the time of the general case
            return theta - theta.mean(axis=0)
        if theta.ndim == 1:
            return theta - np.bincount(self.group, theta)[self.group] / self.group_size[self.group]
        return theta - (self.group_indicator @ theta / self.group_size[:, None])[self.group]

    @cached_property
    def group_indicator(self) -> scipy.sparse.csr_array:
        """Groups x players, 1 where the player is in the group."""
        return scipy.sparse.csr_array(
            (np.ones(self.n), self.group, np.arange(self.n + 1)), shape=(self.n, len(self.group_size))
        ).T.tocsr()


def _group_costs(
    rcm: NDArray[np.int64], group: NDArray[np.int64], i: NDArray[np.int64], j: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per group: the floating-point operations and the numbers held of its block factor and inversion."""
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
    return flops, entries
