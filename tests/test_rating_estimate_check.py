"""A group dearer to factor than ESTIMATE_FIRST_FLOPS gets estimated variances only if their check passes; else the
factor where it is affordable, and where it is not the estimate with the share of the slow modes it misses added."""

from __future__ import annotations

import numpy as np
import pytest

from bench.dense_ratings import dense_fit
from league.arena.ladder import bradley_terry
from league.arena.ladder.bradley_terry import variances
from league.arena.ladder.bradley_terry.graph import Graph
from tests.test_ratings import random_league


def half_width_errors(fit: bradley_terry.Fit, players: list, a, b, a_won) -> np.ndarray:
    _, variance, _ = dense_fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    return np.abs(np.sqrt(fit.variance / variance) - 1.0)


@pytest.fixture
def estimate_first(monkeypatch):
    """Every group with games is dear enough to be estimated first."""
    monkeypatch.setattr(bradley_terry.graph, "ESTIMATE_FIRST_FLOPS", 0.0)


def test_a_well_connected_group_keeps_its_checked_estimate(estimate_first):
    _, a, b, a_won = random_league(seed=11, players=400, n_games=30_000)
    players = list(range(400))
    fit = bradley_terry.fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    assert not fit.exact.any() and np.isnan(fit.covariance).all()
    assert np.max(half_width_errors(fit, players, a, b, a_won)) < variances.ESTIMATE_TOLERANCE
    elo, _, _ = dense_fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    assert np.max(np.abs(fit.elo - elo)) < 1e-6


def test_a_chain_of_neighbours_fails_the_check_and_is_solved_exactly(estimate_first):
    # Close-rating pairings: the estimate's missing long walks make it far too narrow here.
    _, a, b, a_won = random_league(seed=12, players=300, n_games=20_000, reach=6)
    players = list(range(300))
    fit = bradley_terry.fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    assert fit.exact.all()
    assert np.max(half_width_errors(fit, players, a, b, a_won)) < 1e-6


@pytest.fixture
def too_dear(monkeypatch, estimate_first):
    """No group's factor is affordable."""
    monkeypatch.setattr(bradley_terry.graph, "EXACT_FLOPS_LIMIT", 0.0)


def chain_check(reach: int) -> tuple[Graph, np.ndarray, np.ndarray, variances.Check, np.ndarray]:
    """A chain's graph, weights at the optimum, estimate, check, and the dense variances (nats^2)."""
    graph, weight, exact = optimum(*random_league(seed=12, players=300, n_games=20_000, reach=reach)[1:])
    estimate = variances.estimated_variances(graph, weight)
    return graph, weight, estimate, variances.Check.of(graph, weight, np.ones(1, dtype=bool)), exact


def test_a_chain_too_dear_to_factor_gets_the_slow_modes_its_estimate_misses(too_dear):
    graph, weight, estimate, check, exact = chain_check(reach=6)
    assert check.errors(estimate)[0] > variances.ESTIMATE_TOLERANCE  # the series alone fails
    corrected = estimate + variances.slow_mode_correction(graph, weight, np.ones(1, dtype=bool))
    assert check.errors(corrected)[0] <= variances.ESTIMATE_TOLERANCE
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    variance, is_exact, covariance, _ = variances.variances(Graph(graph.n, graph.i, graph.j), weight, diagonal)
    assert not is_exact.any() and np.isnan(covariance).all()
    raw_error = np.max(np.abs(np.sqrt(estimate / exact) - 1.0))
    for corrected_variance in (corrected, variance):  # the latter with the chain's last few versions eliminated
        assert np.max(np.abs(np.sqrt(corrected_variance / exact) - 1.0)) < variances.ESTIMATE_TOLERANCE < raw_error


def test_a_narrower_chain_too_dear_to_factor_keeps_a_corrected_estimate_that_still_fails(too_dear):
    graph, weight, estimate, check, exact = chain_check(reach=2)
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    variance, is_exact, _, _ = variances.variances(Graph(graph.n, graph.i, graph.j), weight, diagonal)
    assert not is_exact.any()
    assert check.errors(variance)[0] > variances.ESTIMATE_TOLERANCE  # the best there is
    before, after = (np.max(np.abs(np.sqrt(v / exact) - 1.0)) for v in (estimate, variance))
    assert after < before / 2


def test_a_group_too_dear_to_factor_whose_estimate_passes_keeps_it_as_it_is(too_dear):
    graph, weight, estimate, _, _ = checked_league()
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    variance, is_exact, _, _ = variances.variances(Graph(graph.n, graph.i, graph.j), weight, diagonal)
    assert not is_exact.any() and np.array_equal(variance, estimate)


def test_slow_modes_that_do_not_converge_in_time_are_left_out(monkeypatch):
    graph, weight, _, _, _ = chain_check(reach=2)
    one = np.ones(1, dtype=bool)
    full = variances.slow_mode_correction(graph, weight, one)
    monkeypatch.setattr(variances, "_MODE_RESTARTS", 1)
    partial = variances.slow_mode_correction(graph, weight, one)
    assert np.all(partial >= 0) and partial.sum() < full.sum()


def test_the_slow_modes_do_not_depend_on_how_the_players_are_numbered():
    graph, weight, _, _, _ = chain_check(reach=6)
    renumbered = graph.n - 1 - np.c_[graph.i, graph.j]
    order = np.lexsort((renumbered.max(axis=1), renumbered.min(axis=1)))
    i, j = renumbered.min(axis=1)[order], renumbered.max(axis=1)[order]
    one = np.ones(1, dtype=bool)
    forward = variances.slow_mode_correction(graph, weight, one)
    backward = variances.slow_mode_correction(Graph(graph.n, i, j), weight[order], one)
    assert forward.min() > 0
    assert forward == pytest.approx(backward[::-1], rel=1e-6)


def test_the_check_decides_per_group(estimate_first):
    _, a1, b1, won1 = random_league(seed=13, players=400, n_games=30_000)
    _, a2, b2, won2 = random_league(seed=14, players=200, n_games=8_000, reach=4)
    a, b, a_won = np.r_[a1, a2 + 400], np.r_[b1, b2 + 400], np.r_[won1, won2]
    fit = bradley_terry.fit(list(range(600)), a, b, wins_a=a_won, wins_b=~a_won)
    assert not fit.exact[:400].any() and fit.exact[400:].all()


def optimum(a: np.ndarray, b: np.ndarray, a_won: np.ndarray) -> tuple[Graph, np.ndarray, np.ndarray]:
    """The graph of one row per game, its weights at the fit's optimum and the dense variances (nats^2)."""
    players = list(range(int(max(a.max(), b.max())) + 1))
    n = len(players)
    fit = bradley_terry.fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    _, dense_variance, _ = dense_fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    order = np.lexsort((np.maximum(a, b), np.minimum(a, b)))
    i, j = np.minimum(a, b)[order], np.maximum(a, b)[order]
    keys, first = np.unique(i * n + j, return_index=True)
    i, j = keys // n, keys % n
    games = np.diff(np.append(first, len(order))).astype(float)
    opponents = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    theta = (fit.elo - 1500.0) / bradley_terry.ELO_PER_NAT
    p = 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
    weight = (games + 2.0 / opponents[i] + 2.0 / opponents[j]) * p * (1.0 - p)
    return Graph(n, i, j), weight, dense_variance / bradley_terry.ELO_PER_NAT**2


def checked_league() -> tuple[Graph, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A graph, its weights at the optimum, the estimate that variances() checks (its few-opponent versions refined;
    this league passes the check or is affordable wherever it is used, so no slow modes), the dense variances, and a
    mask of its one group."""
    graph, weight, exact = optimum(*random_league(seed=15, players=300, n_games=4_000)[1:])
    group = np.ones(1, dtype=bool)
    estimate, _, _ = variances.estimate(graph, weight, group)
    return graph, weight, estimate, exact, group


def test_the_check_reports_the_largest_error_of_its_checked_players():
    graph, weight, estimate, exact, group = checked_league()
    degree = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    squared = graph.upper(weight**2)
    returns = (squared @ (1 / degree) + squared.T @ (1 / degree)) / degree
    assert returns == pytest.approx(variances.two_step_returns(graph, weight), rel=1e-12)
    checked = variances._checked_players(np.arange(graph.n), returns, degree)
    most = variances.RISKIEST_CHECKED + variances.SPREAD_CHECKED + variances.HUBS_CHECKED
    assert variances.RISKIEST_CHECKED + variances.SPREAD_CHECKED <= len(checked) <= most
    # The riskiest first: the players whose walks most often come straight back; and those with the most games.
    assert set(np.argsort(-returns)[: variances.RISKIEST_CHECKED]) <= set(checked)
    assert set(np.argsort(-degree)[: variances.HUBS_CHECKED]) <= set(checked)
    expected = np.max(np.abs(np.sqrt(estimate[checked] / exact[checked]) - 1.0))
    (reported,) = variances.estimate_errors(graph, weight, estimate, group)
    assert reported == pytest.approx(expected, rel=1e-4)


def test_the_tolerance_decides_between_the_estimate_and_the_factor(monkeypatch, estimate_first):
    graph, weight, estimate, exact, group = checked_league()
    (error,) = variances.estimate_errors(graph, weight, estimate, group)
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    graph = Graph(graph.n, graph.i, graph.j)  # with ESTIMATE_FIRST_FLOPS at 0: estimated first
    monkeypatch.setattr(variances, "ESTIMATE_TOLERANCE", error * 1.01)
    variance, is_exact, _, _ = variances.variances(graph, weight, diagonal)
    assert not is_exact.any() and np.array_equal(variance, estimate)
    monkeypatch.setattr(variances, "ESTIMATE_TOLERANCE", error * 0.99)
    variance, is_exact, _, _ = variances.variances(graph, weight, diagonal)
    assert is_exact.all() and variance == pytest.approx(exact, rel=1e-8)


def test_a_check_that_does_not_converge_rejects_the_estimate(monkeypatch):
    graph, weight, estimate, _, group = checked_league()
    monkeypatch.setattr(variances, "_CHECK_MAX_ITERATIONS", 2)
    assert variances.estimate_errors(graph, weight, estimate, group)[0] == np.inf


def test_the_choice_does_not_depend_on_how_the_players_are_numbered(estimate_first):
    _, a, b, a_won = random_league(seed=16, players=400, n_games=30_000)
    forward = bradley_terry.fit(list(range(400)), a, b, wins_a=a_won, wins_b=~a_won)
    renumbered = bradley_terry.fit(list(range(400)), 399 - a, 399 - b, wins_a=a_won, wins_b=~a_won)
    assert not forward.exact.any() and not renumbered.exact.any()
    assert forward.variance == pytest.approx(renumbered.variance[::-1], rel=1e-9)


def test_the_block_factor_lets_the_check_converge_in_a_few_iterations_on_a_chain(monkeypatch):
    graph, weight, estimate, check, _ = chain_check(reach=2)
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    solvable = graph.solvable
    factor = solvable.chain.factor(weight[solvable.pairs], (diagonal + solvable.pinned)[solvable.order])
    one = np.ones(1, dtype=bool)
    monkeypatch.setattr(variances, "_CHECK_MAX_ITERATIONS", 10)
    assert variances.Check.of(graph, weight, one).errors(estimate)[0] == np.inf  # the degrees alone: not in 10
    quick = variances.Check.of(graph, weight, one, factor)
    assert quick.exact == pytest.approx(check.exact, rel=1e-6)


def rounds_run(monkeypatch) -> list[int]:
    """The mode counts variances() computes on the wide chain, too dear to factor."""
    counts: list[int] = []
    found = variances.SlowModes.of.__func__

    def recording(cls, graph, weight, groups, count=variances.SLOW_MODES):
        counts.append(count)
        return found(cls, graph, weight, groups, count)

    graph, weight, _, _, _ = chain_check(reach=6)
    monkeypatch.setattr(variances.SlowModes, "of", classmethod(recording))
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    variances.variances(Graph(graph.n, graph.i, graph.j), weight, diagonal)
    return counts


def test_the_slow_modes_come_in_rounds_while_the_check_fails_and_each_round_helps(too_dear, monkeypatch):
    monkeypatch.setattr(variances, "ESTIMATE_TOLERANCE", 0.0)  # never passes
    monkeypatch.setattr(variances, "MODE_ROUND_GAIN", np.inf)  # every round helps
    assert rounds_run(monkeypatch) == list(variances.MODE_ROUNDS)


def test_a_round_of_slow_modes_that_does_not_help_is_the_last(too_dear, monkeypatch):
    monkeypatch.setattr(variances, "ESTIMATE_TOLERANCE", 0.0)
    monkeypatch.setattr(variances, "MODE_ROUND_GAIN", 0.0)  # no round cuts the error to nothing
    assert rounds_run(monkeypatch) == [variances.MODE_ROUNDS[0]]


def test_the_rounds_end_once_the_check_passes(too_dear, monkeypatch):
    errors: list[float] = []
    judged = variances.Check.errors

    def recording(check, estimate):
        errors.append(float(judged(check, estimate)[0]))
        return judged(check, estimate)

    monkeypatch.setattr(variances.Check, "errors", recording)
    monkeypatch.setattr(variances, "MODE_ROUND_GAIN", np.inf)
    rounds_run(monkeypatch)
    unmodified, one_mode = errors[-len(variances.MODE_ROUNDS)], errors[-len(variances.MODE_ROUNDS) + 1]
    assert one_mode < unmodified
    monkeypatch.setattr(variances, "ESTIMATE_TOLERANCE", one_mode * 1.001)  # the first round passes
    assert rounds_run(monkeypatch) == [variances.MODE_ROUNDS[0]]


def test_a_refits_check_starts_from_the_last_fits_solves_and_ends_where_a_cold_one_does(estimate_first, monkeypatch):
    _, a, b, a_won = random_league(seed=21, players=400, n_games=30_000)
    names = [f"v{k:03d}" for k in range(400)]
    last = bradley_terry.fit(names, a, b, wins_a=a_won, wins_b=~a_won)
    assert last.solves is not None and len(last.solves.players) >= variances.RISKIEST_CHECKED
    # A few more games and a new version (listed first: every index moves under the last fit's solves).
    _, c, d, c_won = random_league(seed=22, players=400, n_games=20)
    a2, b2, won2 = np.r_[a, c, [400, 400]] + 1, np.r_[b, d, [3, 9]] + 1, np.r_[a_won, c_won, [True, False]]
    a2[a2 == 401], b2[b2 == 401] = 0, 0
    now = ["new", *names]
    located = bradley_terry.strengths(now, a2, b2, wins_a=won2, wins_b=~won2)
    cold, warm = located.with_intervals(), located.with_intervals(last)
    assert np.max(np.abs(np.sqrt(warm.variance / cold.variance) - 1.0)) < 1e-9  # the same check decisions

    new_index = np.arange(1, 401)
    carried = last.solves.carried(new_index, 401)
    assert (carried.players == last.solves.players + 1).all()
    assert (carried.solution[1:] == last.solves.solution).all() and not carried.solution[0].any()
    graph, weight = located.optimum.solver.graph, located.optimum.weight
    cold_iterations, warm_iterations = (_check_iterations(graph, weight, w, monkeypatch) for w in (None, carried))
    assert warm_iterations <= cold_iterations
    # On the very same games the last fit's solves are the answer: not one iteration (at 10,000 bots a refit after 20
    # more matches needs none either, where a cold check needs a dozen).
    same = bradley_terry.strengths(names, a, b, wins_a=a_won, wins_b=~a_won).optimum
    assert _check_iterations(same.solver.graph, same.weight, last.solves, monkeypatch) == 0 < cold_iterations


def _check_iterations(graph: Graph, weight: np.ndarray, warm, monkeypatch) -> int:
    """How many conjugate-gradient iterations the check's solves need from `warm`."""
    for iterations in range(300):
        monkeypatch.setattr(variances, "_CHECK_MAX_ITERATIONS", iterations)
        if np.isfinite(variances.Check.of(graph, weight, ~graph.cheap, warm=warm).exact).all():
            return iterations
    raise AssertionError("the check's solves did not converge in 300 iterations")
