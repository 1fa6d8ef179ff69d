"""The posterior's optimum by Newton's method, each step solved by conjugate gradients on the sparse Hessian."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse.linalg
from numpy.typing import NDArray
from scipy.special import expit, log_expit

from league.arena.ladder.bradley_terry.blocks import BlockFactor
from league.arena.ladder.bradley_terry.graph import Graph
from league.arena.ladder.bradley_terry.variances import Solves, variances

# Step sizes are measured in standard errors (see optimum).
_STEP_TOLERANCE = 1e-6  # stop after a step this small: quadratic convergence leaves an error of ~1e-12
_NOISE_SIZE = 1e-3  # below this, a step that stops shrinking is rounding noise
_PURE_NEWTON_SIZE = 1e-2  # below this step size, or this Newton decrement, no line search is needed:
_PURE_NEWTON_DECREMENT = 1e-6  # the objective's decrease would drown in its rounding noise anyway
_MAX_ITERATIONS = 200
_LONGEST_STEP = 3.0  # nats (520 Elo)
_CG_TOLERANCE = 1e-3  # a Newton step's relative residual, tightened as the steps shrink
_SMALLEST_CG_TOLERANCE = 1e-12
_CG_MAX_ITERATIONS = 5000
_REFACTOR_AFTER = 20  # CG iterations in one step that say the block preconditioner has gone stale


@dataclass(frozen=True)
class Mode:
    """Where the fit ends: the strengths, their variances and the pairs' covariances."""

    theta: NDArray[np.float64]  # nats, every group's mean at 0
    variance: NDArray[np.float64]  # nats^2, of each offset from its group's mean
    exact: NDArray[np.bool_]
    covariance: NDArray[np.float64]  # per pair; NaN where estimated
    solves: Solves | None  # the variance check's (variances.variances)


class Posterior:
    """Negative log-posterior of the strengths and its derivatives, over the pairs that met.

    Virtual draws are already in the pair counts. Games only fix differences, so the value is the same for
    any shift of a group: Newton's method keeps every group at mean 0.
    """

    def __init__(self, graph: Graph, score_i: NDArray[np.float64], games: NDArray[np.float64]) -> None:
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
        diagonal = graph.degree(weight)
        return gradient, weight, diagonal


class NewtonSolver:
    """Newton steps by conjugate gradients on the sparse Hessian, the singular Laplacian: every group is kept at mean 0.

    Preconditioner: the diagonal, and on exact groups the block factor once the diagonal is not enough (a chain
    of close ratings needs it; opponents from across the ladder do not). The factor is refreshed when it goes
    stale (the weights move as the strengths do).
    """

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.factor: BlockFactor | None = None
        self.stale = False
        self.iterations = 0

    def refactor(self, weight: NDArray[np.float64], diagonal: NDArray[np.float64]) -> BlockFactor:
        solvable = self.graph.solvable
        self.factor = solvable.chain.factor(weight[solvable.pairs], (diagonal + solvable.pinned)[solvable.order])
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
        first_try = _REFACTOR_AFTER if graph.affordable.any() and self.factor is None else _CG_MAX_ITERATIONS
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
        order = graph.solvable.order if factor is not None else None
        inverse_diagonal = np.divide(1.0, diagonal, out=np.zeros_like(diagonal), where=diagonal > 0)

        def precondition(r: NDArray[np.float64]) -> NDArray[np.float64]:
            z = r * inverse_diagonal
            if factor is not None:
                z[order] = factor.solve(r[order])
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


@dataclass(frozen=True)
class Optimum:
    """The posterior's optimum, before its variances: what a league can show while those are computed."""

    theta: NDArray[np.float64]  # nats, every group's mean at 0
    weight: NDArray[np.float64]  # each pair's curvature there
    diagonal: NDArray[np.float64]  # the Hessian's diagonal there
    solver: NewtonSolver  # its block factor (if any) preconditions the variances' check

    def mode(self, warm: Solves | None = None) -> Mode:
        """The optimum with its variances and the pairs' covariances (the Hessian here is the Fisher information);
        ``warm``: see `variances.variances`."""
        graph = self.solver.graph
        variance, exact, covariance, solves = variances(graph, self.weight, self.diagonal, self.solver.factor, warm)
        return Mode(self.theta, np.maximum(variance, 0.0), exact, covariance, solves)


def optimum(posterior: Posterior, initial: NDArray[np.float64]) -> Optimum:
    """Maximise the log-posterior from `initial`: the strengths, and the curvature there."""
    graph = posterior.graph
    theta = graph.centre(initial)
    solver = NewtonSolver(graph)

    value = posterior.value(theta)
    size = previous_size = math.inf
    for _ in range(_MAX_ITERATIONS):
        gradient, weight, diagonal = posterior.derivatives(theta)
        rtol = min(_CG_TOLERANCE, max(_SMALLEST_CG_TOLERANCE, 1e-2 * size))
        step = solver.step(gradient, weight, diagonal, rtol)
        # Where a strength sits far out, its pairs' curvature p(1 - p) all but vanishes and a Newton step can
        # throw it further still; no step moves anyone by more than _LONGEST_STEP.
        longest = float(np.max(np.abs(step)))
        if not math.isfinite(longest):
            raise RuntimeError("the rating fit's Newton step is not a finite number (the Hessian lost its curvature)")
        step *= min(1.0, _LONGEST_STEP / max(longest, _LONGEST_STEP))
        # The step in units of (a lower bound on) each strength's standard error, so that the stop
        # suits well-measured players and near-flat directions (tiny prior, no losses) alike.
        size = float(np.max(np.abs(step) * np.sqrt(diagonal)))
        decrement = -float(gradient @ step)
        if size <= _PURE_NEWTON_SIZE or 0.0 <= decrement <= _PURE_NEWTON_DECREMENT:
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
    # ~1e-12; its conjugate gradients were solved to a hundredth of the step before.
    theta = graph.centre(theta)
    _, weight, diagonal = posterior.derivatives(theta)
    return Optimum(theta, weight, diagonal, solver)
