"""Versions with few opponents are eliminated exactly before a group's variances are estimated: the rest is the Schur
complement, and each eliminated version's variance follows from the rest's covariances."""

from __future__ import annotations

import numpy as np
import pytest

from league.arena.ladder import bradley_terry
from league.arena.ladder.bradley_terry import elimination, variances
from league.arena.ladder.bradley_terry.graph import Graph

CORE = 300


def laplacian(graph: Graph, weight: np.ndarray) -> np.ndarray:
    dense = np.zeros((graph.n, graph.n))
    np.add.at(dense, (graph.i, graph.j), -weight)
    np.add.at(dense, (graph.j, graph.i), -weight)
    dense[np.diag_indices(graph.n)] = -dense.sum(axis=1)
    return dense


def pendant_league(seed: int = 3) -> tuple[Graph, np.ndarray, dict[str, list[int]]]:
    """A well-connected core of CORE versions with, hanging off it: leaves, a path of three, a run of two that met
    two versions of the core each, and a version with four opponents (too many to be eliminated)."""
    rng = np.random.default_rng(seed)
    pairs = {tuple(sorted(rng.choice(CORE, 2, replace=False))) for _ in range(CORE * 15)}
    n = CORE
    shapes: dict[str, list[int]] = {"leaves": [], "path": [], "run": [], "four": []}
    for _ in range(5):  # leaves
        pairs.add((int(rng.integers(CORE)), n))
        shapes["leaves"].append(n)
        n += 1
    anchor = int(rng.integers(CORE))
    pairs |= {(anchor, n), (n, n + 1), (n + 1, n + 2)}  # a path: core - a - b - c
    shapes["path"] += [n, n + 1, n + 2]
    n += 3
    a, b, c, d = (int(x) for x in rng.choice(CORE, 4, replace=False))
    pairs |= {(a, n), (b, n), (n, n + 1), (c, n + 1), (d, n + 1)}
    shapes["run"] += [n, n + 1]
    n += 2
    pairs |= {(int(x), n) for x in rng.choice(CORE, 4, replace=False)}
    shapes["four"].append(n)
    n += 1
    i, j = np.array(sorted(pairs)).T
    order = np.lexsort((j, i))
    i, j = i[order], j[order]
    return Graph(n, i, j), rng.uniform(0.2, 2.0, len(i)), shapes


@pytest.fixture
def estimated(monkeypatch):
    monkeypatch.setattr(bradley_terry.graph, "ESTIMATE_FIRST_FLOPS", 0.0)


def test_short_runs_of_few_opponents_are_taken_out_and_no_others(estimated):
    graph, weight, shapes = pendant_league()
    reduction = elimination.Reduction.of(graph, weight, np.ones(len(graph.group_size), dtype=bool))
    out = set(np.flatnonzero(reduction.eliminated))
    assert set(shapes["leaves"] + shapes["path"] + shapes["run"]) <= out
    assert shapes["four"][0] not in out
    assert all(len(np.flatnonzero(reduction.graph.group == reduction.graph.group[p])) == 1 for p in out)


def test_the_rest_is_the_schur_complement(estimated):
    graph, weight, _ = pendant_league()
    reduction = elimination.Reduction.of(graph, weight, np.ones(len(graph.group_size), dtype=bool))
    full = laplacian(graph, weight)
    out, kept = reduction.eliminated, ~reduction.eliminated
    schur = full[np.ix_(kept, kept)] - full[np.ix_(kept, out)] @ np.linalg.solve(
        full[np.ix_(out, out)], full[np.ix_(out, kept)]
    )
    rest = laplacian(reduction.graph, reduction.weight)[np.ix_(kept, kept)]
    assert rest == pytest.approx(schur, abs=1e-12)


def test_given_the_rests_exact_covariances_the_eliminated_variances_are_exact(estimated):
    graph, weight, shapes = pendant_league()
    reduction = elimination.Reduction.of(graph, weight, np.ones(len(graph.group_size), dtype=bool))
    exact = np.diag(np.linalg.pinv(laplacian(graph, weight)))
    kept = np.flatnonzero(~reduction.eliminated)
    rest_inverse = np.zeros((graph.n, graph.n))
    rest_inverse[np.ix_(kept, kept)] = np.linalg.pinv(laplacian(reduction.graph, reduction.weight)[np.ix_(kept, kept)])
    expanded = reduction.expand(np.diag(rest_inverse).copy(), lambda a, b: rest_inverse[a, b])
    # Exact for the offsets from the rest's mean: e_p - (the rest's indicator) / (its size), through the whole inverse.
    offset = np.eye(graph.n)
    offset[:, kept] -= 1.0 / len(kept)
    from_rest_mean = np.einsum("pi,ij,pj->p", offset, np.linalg.pinv(laplacian(graph, weight)), offset)
    assert expanded == pytest.approx(from_rest_mean, rel=1e-9)
    # From the whole group's mean, as the fit reports them: off by about twice a run's length / the group's size.
    assert expanded == pytest.approx(exact, rel=2 * 4 / graph.n)


def test_the_estimate_of_the_eliminated_versions_is_close_where_the_series_alone_is_not(estimated):
    graph, weight, shapes = pendant_league()
    exact = np.diag(np.linalg.pinv(laplacian(graph, weight)))
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    variance, is_exact, _, _ = variances.variances(graph, weight, diagonal)
    assert not is_exact.any()
    eliminated = shapes["leaves"] + shapes["path"] + shapes["run"]
    error = np.abs(np.sqrt(variance / exact) - 1.0)
    series_error = np.abs(np.sqrt(variances.estimated_variances(graph, weight) / exact) - 1.0)
    assert np.max(error[eliminated]) < 0.01 < 0.1 < np.max(series_error[eliminated])
    assert np.max(error) < variances.ESTIMATE_TOLERANCE


def test_a_group_of_nothing_but_short_runs_is_left_whole(estimated):
    # A path of four versions: every one met at most two opponents, and eliminating them would leave nothing.
    graph = Graph(4, np.array([0, 1, 2]), np.array([1, 2, 3]))
    reduction = elimination.Reduction.of(graph, np.ones(3), np.ones(1, dtype=bool))
    assert not reduction.eliminated.any() and reduction.graph is graph


def test_the_numbering_does_not_change_the_variances(estimated):
    graph, weight, _ = pendant_league()
    diagonal = np.bincount(graph.i, weight, graph.n) + np.bincount(graph.j, weight, graph.n)
    forward, _, _, _ = variances.variances(graph, weight, diagonal)
    flipped = graph.n - 1 - np.c_[graph.i, graph.j]
    i, j = flipped.min(axis=1), flipped.max(axis=1)
    order = np.lexsort((j, i))
    backward, _, _, _ = variances.variances(Graph(graph.n, i[order], j[order]), weight[order], diagonal[::-1])
    assert forward == pytest.approx(backward[::-1], rel=1e-9)
