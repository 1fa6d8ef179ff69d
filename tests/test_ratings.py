"""The ladder's Bradley-Terry fit: known cases, the optimum's conditions, determinism, coverage, bad input."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from bench.dense_ratings import dense_fit
from league.arena.ladder import bradley_terry
from league.arena.ladder.bradley_terry import ELO_PER_NAT, fit_counts, fit_ratings

TINY_PRIOR = bradley_terry.MIN_PRIOR_GAMES


def games(a: str, b: str, wins: int, losses: int, draws: int = 0) -> list[tuple[str, str, float]]:
    return [(a, b, 1)] * wins + [(a, b, 0)] * losses + [(a, b, 0.5)] * draws


def random_league(
    seed: int, players: int, n_games: int, spread: float = 1.0, reach: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """True strengths (nats, mean 0) and one row per game: a, b, a_won.

    Opponents are uniform, or with `reach` only the `reach` next-stronger players: a chain like the
    one the league's closest-rating pairing builds.
    """
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0.0, spread, players))
    theta -= theta.mean()
    if reach is None:
        a = rng.integers(0, players, n_games)
        b = (a + rng.integers(1, players, n_games)) % players
    else:
        a = rng.integers(0, players - reach, n_games)
        b = a + rng.integers(1, reach + 1, n_games)
    a_won = rng.random(n_games) < 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
    return theta, a, b, a_won


def strengths(fit: dict, anchor: float = 1500.0) -> dict:
    return {p: (r.elo - anchor) / ELO_PER_NAT for p, r in fit.items()}


def virtual_draws(results: list, prior_games: float) -> dict:
    """The prior, written out independently: each player's draws shared among its distinct opponents."""
    opponents: dict = {}
    for a, b, _ in results:
        opponents.setdefault(a, set()).add(b)
        opponents.setdefault(b, set()).add(a)
    return {
        (a, b): prior_games / len(opponents[a]) + prior_games / len(opponents[b])
        for a in opponents
        for b in opponents[a]
        if repr(a) < repr(b)
    }


def gradient_of_log_posterior(fit: dict, results: list, prior_games: float, anchor: float = 1500.0) -> dict:
    """d log-posterior / d theta_p for each player."""
    theta = strengths(fit, anchor)
    grad = dict.fromkeys(theta, 0.0)
    observations = [(a, b, score, 1.0) for a, b, score in results]
    observations += [(a, b, 0.5, v) for (a, b), v in virtual_draws(results, prior_games).items()]
    for a, b, score, count in observations:
        p_a = expit(theta[a] - theta[b])
        grad[a] += count * (score - p_a)
        grad[b] -= count * (score - p_a)
    return grad


def test_a_75_percent_score_is_191_elo_when_the_prior_is_negligible():
    fit = fit_ratings(games("a", "b", 300, 100), prior_games=TINY_PRIOR)
    assert fit["a"].elo - fit["b"].elo == pytest.approx(400 * math.log10(3), abs=1e-3)


def test_draws_count_half_a_win():
    fit = fit_ratings(games("a", "b", 20, 0, draws=40), prior_games=TINY_PRIOR)  # a scores 2/3
    assert fit["a"].elo - fit["b"].elo == pytest.approx(400 * math.log10(2), abs=1e-3)
    assert (fit["a"].wins, fit["a"].losses, fit["a"].draws, fit["a"].games) == (20, 0, 40, 60)
    assert (fit["b"].wins, fit["b"].losses, fit["b"].draws, fit["b"].games) == (0, 20, 40, 60)


def test_an_even_record_sits_on_the_anchor_and_the_prior_pulls_both_sides_towards_each_other():
    even = fit_ratings(games("a", "b", 5, 5, draws=3), anchor=1000.0)
    assert even["a"].elo == pytest.approx(1000.0, abs=1e-9) and even["b"].elo == pytest.approx(1000.0, abs=1e-9)
    lopsided = fit_ratings(games("a", "b", 3, 1))
    assert lopsided["a"].elo - 1500.0 == pytest.approx(1500.0 - lopsided["b"].elo, abs=1e-9)
    weak, strong = (
        fit_ratings(games("a", "b", 3, 1), prior_games=1.0),
        fit_ratings(games("a", "b", 3, 1), prior_games=8.0),
    )
    assert weak["a"].elo - weak["b"].elo > strong["a"].elo - strong["b"].elo > 0


def test_an_unbeaten_player_stays_finite():
    for wins in (1, 10, 10_000):
        fit = fit_ratings(games("a", "b", wins, 0))
        for r in fit.values():
            assert all(math.isfinite(x) for x in (r.elo, r.low, r.high))
        assert fit["a"].elo > 1500.0 > fit["b"].elo
    extreme = fit_ratings(games("a", "b", 1_000_000, 0), prior_games=TINY_PRIOR)
    assert math.isfinite(extreme["a"].elo) and math.isfinite(extreme["a"].low)


def test_the_fit_solves_the_posterior_score_equations():
    rng = random.Random(5)
    results = [(p, q, rng.choice((0, 0.5, 1, 1))) for p, q in (rng.sample("abcdefgh", 2) for _ in range(400))]
    for prior in (TINY_PRIOR, 2.0, 50.0):
        fit = fit_ratings(results, prior_games=prior, anchor=1234.0)
        grad = gradient_of_log_posterior(fit, results, prior, 1234.0)
        assert max(abs(g) for g in grad.values()) < 1e-8


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde"), st.sampled_from([0, 0.5, 1])).filter(
            lambda r: r[0] != r[1]
        ),
        max_size=40,
    ),
    st.floats(min_value=0.01, max_value=20.0),
)
def test_any_small_ladder_is_fitted_to_its_optimum(results, prior):
    fit = fit_ratings(results, prior_games=prior)
    grad = gradient_of_log_posterior(fit, results, prior, 1500.0)
    assert max((abs(g) for g in grad.values()), default=0.0) < 1e-7
    assert sum(r.elo for r in fit.values()) == pytest.approx(1500.0 * len(fit), abs=1e-6)
    for r in fit.values():
        assert r.low < r.elo < r.high
        assert r.games == r.wins + r.losses + r.draws


def test_the_interval_is_the_inverse_fisher_information_of_the_offset_from_the_mean():
    results = games("a", "b", 7, 3, 2) + games("b", "c", 4, 4) + games("c", "a", 1, 5) + games("d", "a", 0, 2)
    fit = fit_ratings(results, prior_games=2.0)
    players = sorted(fit)
    theta = strengths(fit)
    assert sum(theta.values()) == pytest.approx(0.0, abs=1e-12)
    laplacian = np.zeros((4, 4))
    pairs = [(a, b, 1.0) for a, b, _ in results] + [(a, b, v) for (a, b), v in virtual_draws(results, 2.0).items()]
    for a, b, count in pairs:
        i, j = players.index(a), players.index(b)
        w = count * expit(theta[a] - theta[b]) * expit(theta[b] - theta[a])
        laplacian[[i, j, i, j], [i, j, j, i]] += [w, w, -w, -w]
    # The offsets from the mean live in the Laplacian's range, where its pseudo-inverse is the covariance.
    covariance = np.linalg.pinv(laplacian)
    for k, p in enumerate(players):
        half_width = 1.959963984540054 * ELO_PER_NAT * math.sqrt(covariance[k, k])
        expected = (fit[p].elo - half_width, fit[p].elo + half_width)
        assert (fit[p].low, fit[p].high) == pytest.approx(expected, rel=1e-9)


def test_a_player_without_games_sits_on_the_anchor_with_an_unbounded_interval():
    fit = fit_counts(["a", "b", "idle"], [0, 1], [1, 0], wins_a=[3, 0], wins_b=[1, 0], anchor=1000.0)
    idle = fit["idle"]
    assert (idle.elo, idle.low, idle.high) == (1000.0, -math.inf, math.inf)
    assert (idle.games, idle.wins, idle.losses, idle.draws) == (0, 0, 0, 0)
    assert fit["a"].elo + fit["b"].elo == pytest.approx(2000.0, abs=1e-9)


def test_disconnected_groups_are_fitted_as_if_alone_each_around_the_anchor():
    first = games("a", "b", 6, 2) + games("b", "c", 3, 3)
    second = games("x", "y", 1, 9)
    together = fit_ratings(first + second)
    for group in (first, second):
        alone = fit_ratings(group)
        assert sum(r.elo for r in alone.values()) == pytest.approx(1500.0 * len(alone), abs=1e-9)
        for p, rating in alone.items():
            assert (together[p].elo, together[p].low, together[p].high) == pytest.approx(
                (rating.elo, rating.low, rating.high), abs=1e-9
            )


def test_any_order_and_orientation_of_the_same_games_gives_identical_numbers():
    _, a, b, a_won = random_league(seed=3, players=40, n_games=3000)
    rng = random.Random(11)
    draws = [rng.random() < 0.1 for _ in range(len(a))]
    results = [(f"bot{x}", f"bot{y}", 0.5 if d else float(w)) for x, y, w, d in zip(a, b, a_won, draws, strict=True)]
    reference = fit_ratings(results)
    for _ in range(3):
        shuffled = results[:]
        rng.shuffle(shuffled)
        flipped = [(q, p, 1 - s) if rng.random() < 0.5 else (p, q, s) for p, q, s in shuffled]
        assert fit_ratings(flipped) == reference  # bitwise


def test_counts_and_single_games_give_the_same_fit():
    _, a, b, a_won = random_league(seed=4, players=30, n_games=2000)
    players = [f"v{k}" for k in range(30)]
    per_game = fit_ratings([(players[x], players[y], int(w)) for x, y, w in zip(a, b, a_won, strict=True)])
    pairs: dict[tuple[int, int], list[int]] = {}
    for x, y, w in zip(a, b, a_won, strict=True):
        pairs.setdefault((x, y), [0, 0])[0 if w else 1] += 1
    keys = list(pairs)
    counted = fit_counts(
        players,
        [k[0] for k in keys],
        [k[1] for k in keys],
        wins_a=np.array([pairs[k][0] for k in keys], dtype=float),  # whole floats, as SQL sums may come back
        wins_b=[pairs[k][1] for k in keys],
        draws=np.zeros(len(keys), dtype=np.int32),
    )
    for p in players:
        assert counted[p].elo == pytest.approx(per_game[p].elo, abs=1e-9)
        assert counted[p].low == pytest.approx(per_game[p].low, abs=1e-9)
        assert (counted[p].wins, counted[p].losses) == (per_game[p].wins, per_game[p].losses)


def assert_same_as_the_dense_fit(fit: bradley_terry.Fit, players: list, a, b, a_won, variances: str = "exact") -> None:
    elo, variance, covariance = dense_fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    assert np.max(np.abs(fit.elo - elo)) < 1e-6
    half_width_error = np.abs(np.sqrt(fit.variance / variance) - 1.0)
    if variances == "exact":
        assert fit.exact.all() and np.max(half_width_error) < 1e-6
        scale = np.sqrt(variance[fit.pair_a] * variance[fit.pair_b])
        assert np.max(np.abs(fit.covariance - covariance[fit.pair_a, fit.pair_b]) / scale) < 1e-6
    else:
        assert not fit.exact.any() and np.isnan(fit.covariance).all()
        assert np.max(half_width_error) < 0.01  # the issue allows 5 %; a random league is well within 1 %


@pytest.mark.parametrize("reach", [None, 6], ids=["random-opponents", "chain-of-neighbours"])
def test_exact_variances_and_covariances_equal_the_dense_inverse(reach, monkeypatch):
    # Blocks of 8 players at least: the chain is cut into dozens of blocks, the random league into two.
    monkeypatch.setattr(bradley_terry.blocks, "BLOCK_SIZE", 8)
    _, a, b, a_won = random_league(seed=6, players=300, n_games=20_000, spread=1.5, reach=reach)
    players = list(range(300))
    fit = bradley_terry.fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    assert_same_as_the_dense_fit(fit, players, a, b, a_won)


def test_a_group_too_dense_to_factor_gets_estimated_variances_and_the_same_ratings(monkeypatch):
    _, a, b, a_won = random_league(seed=7, players=400, n_games=30_000)
    players = list(range(400))
    monkeypatch.setattr(bradley_terry.graph, "EXACT_FLOPS_LIMIT", 1e6)
    fit = bradley_terry.fit(players, a, b, wins_a=a_won, wins_b=~a_won)
    assert_same_as_the_dense_fit(fit, players, a, b, a_won, variances="estimated")


def test_exact_and_estimated_groups_in_one_fit_each_match_the_dense_fit_alone(monkeypatch):
    monkeypatch.setattr(
        bradley_terry.graph, "EXACT_FLOPS_LIMIT", 2e7
    )  # the 400-player group is estimated, the chain not
    _, a1, b1, won1 = random_league(seed=8, players=400, n_games=30_000)
    _, a2, b2, won2 = random_league(seed=9, players=200, n_games=5_000, reach=3)
    a, b, a_won = np.r_[a1, a2 + 400], np.r_[b1, b2 + 400], np.r_[won1, won2]
    fit = bradley_terry.fit(list(range(600)), a, b, wins_a=a_won, wins_b=~a_won)
    assert not fit.exact[:400].any() and fit.exact[400:].all()
    for part, (pa, pb, won) in ((slice(0, 400), (a1, b1, won1)), (slice(400, 600), (a2, b2, won2))):
        alone = bradley_terry.fit(list(range(part.stop - part.start)), pa, pb, wins_a=won, wins_b=~won)
        assert np.max(np.abs(fit.elo[part] - alone.elo)) < 1e-6
        assert fit.variance[part] == pytest.approx(alone.variance, rel=1e-6)


def test_newcomers_with_one_lopsided_match_each_do_not_throw_the_fit_off():
    # The league's shape after a wave of uploads: from the log-odds start, a Newton step once threw such
    # versions where their pairs had no curvature left, and the next step blew up.
    rng = np.random.default_rng(1)
    theta = rng.normal(0.0, 1.5, 400)
    a = np.r_[rng.integers(0, 300, 6000), np.arange(300, 400)]
    b = np.r_[(a[:6000] + rng.integers(1, 300, 6000)) % 300, rng.integers(0, 300, 100)]
    wins = rng.binomial(10, expit(theta[a] - theta[b]))
    players = list(range(400))
    fit = bradley_terry.fit(players, a, b, wins_a=wins, wins_b=10 - wins)
    elo, _, _ = dense_fit(players, a, b, wins_a=wins, wins_b=10 - wins)
    assert np.max(np.abs(fit.elo - elo)) < 1e-6


def test_the_fit_as_arrays_says_what_it_knows_per_player_and_per_pair():
    fit = bradley_terry.fit(["a", "b", "c", "idle"], [0, 1], [1, 2], wins_a=[3, 1], wins_b=[1, 1])
    assert list(fit.pair_a) == [0, 1] and list(fit.pair_b) == [1, 2]
    assert fit.variance[3] == math.inf and np.isfinite(fit.variance[:3]).all()
    assert fit.ratings["idle"].low == -math.inf
    # b sits between a and c, so the offsets of a and of c from the mean move against b's.
    assert (fit.covariance < 0).all()
    margin = fit.ratings["a"].high - fit.ratings["a"].elo
    assert margin == pytest.approx(bradley_terry.Z95 * math.sqrt(fit.variance[0]))


@pytest.mark.parametrize(
    ("reach", "leagues"),
    # Along a chain the errors are correlated, so one league is only a few independent checks: fit many.
    [(None, 5), (6, 60)],
    ids=["everyone-meets-everyone", "chain-of-neighbours"],
)
def test_a_large_league_recovers_the_true_strengths_within_the_intervals_95_percent_of_the_time(reach, leagues):
    covered = total = 0
    for seed in range(leagues):
        theta, a, b, a_won = random_league(seed=100 + seed, players=200, n_games=20_000, reach=reach)
        fit = fit_counts(list(range(200)), a, b, wins_a=a_won, wins_b=~a_won)
        true_elo = 1500.0 + ELO_PER_NAT * theta
        covered += sum(fit[k].low <= true_elo[k] <= fit[k].high for k in range(200))
        total += 200
    assert 0.93 <= covered / total <= 0.98


def test_the_prior_does_not_squeeze_a_chain_of_neighbours():
    # A pull of every player towards 1500 would keep a few percent of this chain's spread.
    theta, a, b, a_won = random_league(seed=8, players=1000, n_games=100_000, spread=1.5, reach=10)
    fits = [fit_counts(list(range(1000)), a, b, wins_a=a_won, wins_b=~a_won, prior_games=g) for g in (2.0, TINY_PRIOR)]
    with_prior, without = (np.array([fit[k].elo for k in range(1000)]) for fit in fits)
    assert 0.95 < np.polyfit(without, with_prior, 1)[0] < 1.0
    assert np.corrcoef(theta, with_prior)[0, 1] > 0.95


def test_mixed_id_types_and_no_games():
    assert fit_ratings([]) == {}
    fit = fit_ratings([(1, "one", 1), ("one", (1, 2), 0.5)])
    assert set(fit) == {1, "one", (1, 2)}
    assert fit[1].elo > fit["one"].elo


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([("a", "b", 2)], "score_a 2"),
        ([("a", "b", "1")], "score_a '1'"),
        ([("a", "b", [1])], r"score_a \[1\]"),
        ([("a", "b", float("nan"))], "score_a nan"),
        ([("a", "b")], "expected \\(player_a, player_b, score_a\\)"),
        ([("a", "a", 1)], "'a' plays itself"),
    ],
)
def test_bad_results_are_named(results, message):
    with pytest.raises(ValueError, match=message):
        fit_ratings(results)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"a": [0, 2]}, r"a\[1\] = 2 is not an index into the 2 players"),
        ({"a": [0.0, 1.0]}, "a must hold integer player indices"),
        ({"b": [1]}, "a has 2 rows but b has 1"),
        ({"wins_a": [1, -1]}, r"wins_a\[1\] = -1 is not a non-negative whole number"),
        ({"wins_b": [0.5, 0]}, r"wins_b\[0\] = 0.5 is not a non-negative whole number"),
        ({"draws": [0]}, r"draws must have shape \(2,\)"),
        ({"players": ["x", "x"]}, "same player more than once"),
        ({"prior_games": 0.0}, "prior_games must be a finite number >= 1e-06"),
        ({"prior_games": math.inf}, "prior_games must be a finite number"),
        ({"anchor": math.nan}, "anchor must be finite"),
    ],
)
def test_bad_counts_are_named(kwargs, message):
    arguments = {"players": ["x", "y"], "a": [0, 1], "b": [1, 0], "wins_a": [1, 0], "wins_b": [0, 2], "draws": None}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        fit_counts(arguments.pop("players"), arguments.pop("a"), arguments.pop("b"), **arguments)


def test_the_rating_maths_imports_without_django_or_celery():
    import os
    import subprocess
    import sys

    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    code = (
        "import sys, league.arena.ladder.bradley_terry\n"
        "assert league.arena.ladder.bradley_terry.fit_ratings([(1, 2, 1), (2, 1, 0.5)])[1].elo > 1500\n"
        "print(sorted({'django', 'celery'} & {name.split('.')[0] for name in sys.modules}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_warm_start_ends_on_the_same_optimum():
    rng = random.Random(3)
    results = [(a, b, rng.choice([0, 0.5, 1])) for a, b in ((rng.randrange(40), rng.randrange(40)) for _ in range(600))]
    results = [r for r in results if r[0] != r[1]]
    cold = fit_ratings(results)
    # From the fit itself, from a fit on fewer games, and from nonsense: always the same numbers.
    fewer = fit_ratings(results[:400])
    starts = [{p: r.elo for p, r in cold.items()}, {p: r.elo for p, r in fewer.items()}, {0: 9000.0, 5: -400.0}]
    players = sorted(cold)
    index = {p: k for k, p in enumerate(players)}
    a = [index[r[0]] for r in results]
    b = [index[r[1]] for r in results]
    wins_a = [r[2] == 1 for r in results]
    wins_b = [r[2] == 0 for r in results]
    draws = [r[2] == 0.5 for r in results]
    for start in starts:
        warm = fit_counts(players, a, b, wins_a=wins_a, wins_b=wins_b, draws=draws, start=start)
        for player, rating in cold.items():
            assert warm[player].elo == pytest.approx(rating.elo, abs=1e-9)
            assert warm[player].low == pytest.approx(rating.low, abs=1e-9)
    with pytest.raises(ValueError, match="start holds a rating that is not a finite number"):
        fit_counts(players, a, b, wins_a=wins_a, wins_b=wins_b, draws=draws, start={0: math.nan})
