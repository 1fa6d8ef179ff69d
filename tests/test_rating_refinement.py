"""Versions with few opponents get their variance through their opponents' covariances, Var(p) = 1/d_p + r' C r,
with C the series' estimate (and the slow modes' share where a group gets them): far closer than the series alone."""

from __future__ import annotations

import numpy as np
import pytest

from league.arena.ladder import bradley_terry
from league.arena.ladder.bradley_terry import refinement, variances
from league.arena.ladder.bradley_terry.graph import Graph
from tests.test_rating_elimination import laplacian

CORE = 300


def fringe_league(seed: int = 5) -> tuple[Graph, np.ndarray, list[int]]:
    """A well-connected core, and 40 versions hanging off it that met 4 to 8 of its versions each (too many
    opponents to be eliminated), each of them in five times the games of a pair of the core: their walks keep coming
    back to them, which the series' few terms miss."""
    rng = np.random.default_rng(seed)
    pairs = {tuple(sorted(rng.choice(CORE, 2, replace=False))) for _ in range(CORE * 15)}
    fringe = list(range(CORE, CORE + 40))
    for version in fringe:
        pairs |= {(int(met), version) for met in rng.choice(CORE, int(rng.integers(4, 9)), replace=False)}
    i, j = np.array(sorted(pairs)).T
    weight = rng.uniform(0.2, 2.0, len(i)) * np.where(j >= CORE, 5.0, 1.0)
    return Graph(CORE + len(fringe), i, j), weight, fringe


def dense_series(graph: Graph, weight: np.ndarray) -> np.ndarray:
    """The series' second-order estimate of the Laplacian's pseudo-inverse (variances.Series), dense: the three terms
    of sum_k (D^-1 W)^k D^-1 less their stationary parts, projected onto offsets from the mean."""
    adjacency = np.diag(np.diag(laplacian(graph, weight))) - laplacian(graph, weight)
    degree = adjacency.sum(axis=1)
    walk = adjacency / degree[:, None]
    inverse = np.diag(1.0 / degree)
    series = inverse + walk @ inverse + walk @ walk @ inverse - 3.0 / degree.sum()
    centre = np.eye(graph.n) - 1.0 / graph.n
    return centre @ series @ centre


@pytest.fixture
def estimated(monkeypatch):
    monkeypatch.setattr(bradley_terry.graph, "ESTIMATE_FIRST_FLOPS", 0.0)


def test_the_refined_variance_is_one_over_the_degree_plus_the_opponents_spread_under_the_series():
    graph, weight, fringe = fringe_league()
    series = variances.Series(graph, weight)
    refined = refinement.Refinement.of(series, np.ones(graph.n, dtype=bool))
    opponents = np.bincount(graph.i, minlength=graph.n) + np.bincount(graph.j, minlength=graph.n)
    assert set(refined.players) == set(np.flatnonzero(opponents <= refinement.FEW_OPPONENTS)) >= set(fringe)
    adjacency = np.diag(np.diag(laplacian(graph, weight))) - laplacian(graph, weight)
    degree = adjacency.sum(axis=1)
    reach = adjacency[refined.players] / degree[refined.players, None]
    expected = 1.0 / degree[refined.players] + np.einsum("pi,ij,pj->p", reach, dense_series(graph, weight), reach)
    assert refined.through_series == pytest.approx(expected, rel=1e-10)
    assert refined.reach.toarray() == pytest.approx(reach, rel=1e-12)


def test_only_the_chosen_versions_are_refined():
    graph, weight, fringe = fringe_league()
    chosen = np.zeros(graph.n, dtype=bool)
    chosen[fringe[:5]] = True
    refined = refinement.Refinement.of(variances.Series(graph, weight), chosen)
    assert list(refined.players) == fringe[:5]
    before = np.arange(graph.n, dtype=float)
    after = refined.apply(before)
    assert np.array_equal(np.delete(after, fringe[:5]), np.delete(before, fringe[:5]))
    assert after[fringe[:5]] == pytest.approx(refined.through_series)


def test_the_slow_modes_share_goes_in_through_the_opponents_too():
    graph, weight, _ = fringe_league()
    refined = refinement.Refinement.of(variances.Series(graph, weight), np.ones(graph.n, dtype=bool))
    modes = variances.SlowModes.of(graph, weight, np.ones(1, dtype=bool))
    assert modes.shares.size == variances.SLOW_MODES
    share = modes.vectors @ np.diag(modes.shares) @ modes.vectors.T
    reach = refined.reach.toarray()
    expected = refined.through_series + np.einsum("pi,ij,pj->p", reach, share, reach)
    assert refined.apply(np.zeros(graph.n), modes)[refined.players] == pytest.approx(expected, rel=1e-10)


def test_given_exact_covariances_the_identity_is_exact_to_one_over_the_group_size():
    # What the refinement rests on: the series' error on p becomes the series' error on its opponents' covariances.
    graph, weight, fringe = fringe_league()
    exact = np.linalg.pinv(laplacian(graph, weight))
    adjacency = np.diag(np.diag(laplacian(graph, weight))) - laplacian(graph, weight)
    degree = adjacency.sum(axis=1)
    reach = adjacency[fringe] / degree[fringe, None]
    through = 1.0 / degree[fringe] + np.einsum("pi,ij,pj->p", reach, exact, reach)
    assert through == pytest.approx(np.diag(exact)[fringe], rel=2.0 / graph.n)


def test_versions_with_a_few_opponents_are_close_where_the_series_alone_is_not(estimated, monkeypatch):
    graph, weight, fringe = fringe_league()
    exact = np.diag(np.linalg.pinv(laplacian(graph, weight)))
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    variance, is_exact, _, _ = variances.variances(graph, weight, diagonal)
    assert not is_exact.any()  # the estimate passed its check
    error = np.abs(np.sqrt(variance / exact) - 1.0)
    series_error = np.abs(np.sqrt(variances.estimated_variances(graph, weight) / exact) - 1.0)
    assert np.max(error[fringe]) < 0.005 < 0.02 < np.max(series_error[fringe])
    assert np.max(error) < variances.ESTIMATE_TOLERANCE < np.max(series_error)
    # Without the refinement the same group fails its check and is factored.
    monkeypatch.setattr(refinement, "FEW_OPPONENTS", 0)
    assert variances.variances(graph, weight, diagonal)[1].all()
