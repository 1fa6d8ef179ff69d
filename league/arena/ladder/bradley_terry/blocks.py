"""The exactly solved part of the Hessian as a chain of dense blocks: block Cholesky and the Takahashi inverse.

Positions (players in reverse Cuthill-McKee order) are cut into consecutive blocks such that every pair lies within
one block or two neighbouring ones, so the Hessian is block tridiagonal: its factor has the same shape, and the
inverse's entries on those blocks (every variance and the covariance of every pair that met) follow from it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import blas, lapack

BLOCK_SIZE = 64  # the smallest diagonal block: smaller ones cost more in Python than they save in flops


def block_flops(sizes: NDArray[np.float64], following: NDArray[np.float64]) -> NDArray[np.float64]:
    """Floating-point operations to factor and invert each block with its coupling to the next."""
    return 2.0 * sizes**3 + 3.0 * sizes**2 * following + 3.0 * sizes * following**2


def reach(low: NDArray[np.int64], high: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """For each of n positions, the furthest position met by anyone up to it (at least itself).

    Pair k joins positions low[k] < high[k].
    """
    far = np.arange(n)
    np.maximum.at(far, low, high)
    return np.maximum.accumulate(far) if n else far


def block_starts(furthest: NDArray[np.int64], end_of: NDArray[np.int64]) -> NDArray[np.int64]:
    """Cut positions 0..n into blocks such that every pair lies within one block or two neighbouring ones.

    A block reaches from where the last one ended to the furthest opponent of anyone in the last one (at
    least BLOCK_SIZE), never past ``end_of`` (the end of the group, so that a block never spans two groups
    when the groups' costs are counted apart).
    """
    n = len(furthest)
    starts = [0]
    begin, end = 0, min(BLOCK_SIZE, int(end_of[0])) if n else 0
    while end < n:
        if end == end_of[begin]:
            next_end = min(end + BLOCK_SIZE, int(end_of[end]))
        else:
            next_end = min(max(int(furthest[end - 1]) + 1, end + BLOCK_SIZE), int(end_of[end]))
        starts.append(end)
        begin, end = end, next_end
    starts.append(n)
    return np.asarray(starts, dtype=np.int64)


class BlockChain:
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
        self.starts = block_starts(reach(low, high, len(order)), np.full(len(order), len(order)))
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

    def factor(self, weight: NDArray[np.float64], diagonal: NDArray[np.float64]) -> BlockFactor:
        """Cholesky factor of the blocks, from the exact pairs' weights and the diagonal (in ``order``)."""
        buffer = np.zeros(self.buffer_size)
        buffer[self.pair_slot] = -weight
        buffer[self.diagonal_slot] = diagonal
        return BlockFactor(self, buffer)

    def square(self, buffer: NDArray[np.float64], k: int) -> NDArray[np.float64]:
        size = self.sizes[k]
        return buffer[self.square_offsets[k] : self.square_offsets[k + 1]].reshape(size, size)

    def coupling(self, buffer: NDArray[np.float64], k: int) -> NDArray[np.float64]:
        return buffer[self.coupling_offsets[k] : self.coupling_offsets[k + 1]].reshape(self.sizes[k + 1], -1)


class BlockFactor:
    """H = L L' with L block lower bidiagonal: ``lower[k]`` on the diagonal, ``below[k]`` under it."""

    def __init__(self, chain: BlockChain, buffer: NDArray[np.float64]) -> None:
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
