"""Tests on simulated results with a known true Elo reach the right verdict, as often and as fast as theory says.

Face to Face has no draws, so a simulated pair is two independent games each won with the true expected score.
"""

import random

import pytest

from bots.sprt import SPRT, Verdict
from bots.sprt.gsprt import logistic_score
from bots.sprt.simulation import pair_distribution, simulate
from bots.sprt.theory import brownian_exit, expectation

BATCH = 10  # pairs between checks, as the CLI and the league check


def verdicts(true_elo: float, test: SPRT, runs: int, seed: int) -> tuple[float, float]:
    """(share of runs accepting H1, mean pairs to a verdict)."""
    rng = random.Random(seed)
    true = pair_distribution(logistic_score(true_elo)).probs
    results = [simulate(test, true, BATCH, rng) for _ in range(runs)]
    assert all(verdict is not None for verdict, _ in results)
    return sum(verdict == Verdict.H1 for verdict, _ in results) / runs, sum(n for _, n in results) / runs


@pytest.mark.slow
def test_a_true_gain_of_20_elo_passes_bounds_0_10():
    accepted, _ = verdicts(20, SPRT(0, 10, elo_model="logistic"), runs=200, seed=20)
    assert accepted >= 0.95


@pytest.mark.slow
def test_a_true_loss_of_10_elo_fails_bounds_0_10():
    accepted, _ = verdicts(-10, SPRT(0, 10, elo_model="logistic"), runs=200, seed=-10)
    assert 1 - accepted >= 0.95


@pytest.mark.parametrize(("true_elo", "test"), [(60, SPRT(0, 40, elo_model="logistic")), (80, SPRT(0, 25))])
def test_mean_length_and_pass_rate_follow_the_theory(true_elo, test):
    accepted, mean_pairs = verdicts(true_elo, test, runs=60, seed=true_elo)
    theory = expectation(test, pair_distribution(logistic_score(true_elo)), "pentanomial", batch=BATCH)
    assert abs(mean_pairs - theory.samples) <= 0.2 * theory.samples
    assert accepted == pytest.approx(theory.pass_probability, abs=0.1)


def test_at_the_bounds_the_error_rates_are_alpha_and_beta():
    test = SPRT(0, 40, alpha=0.05, beta=0.1, elo_model="logistic")
    at_h0 = expectation(test, pair_distribution(logistic_score(0)), "pentanomial", overshoot=False)
    at_h1 = expectation(test, pair_distribution(logistic_score(40)), "pentanomial", overshoot=False)
    assert at_h0.pass_probability == pytest.approx(0.05, abs=0.01)
    assert at_h1.pass_probability == pytest.approx(0.9, abs=0.01)


def test_brownian_exit_limits():
    probability, time = brownian_exit(1e-12, 1.0, -2.0, 3.0)
    assert probability == pytest.approx(0.4) and time == pytest.approx(6.0)
    probability, time = brownian_exit(0.5, 1e-6, -2.0, 3.0)
    assert probability == pytest.approx(1.0) and time == pytest.approx(6.0)
    probability, time = brownian_exit(-0.5, 1e-6, -2.0, 3.0)
    assert probability == pytest.approx(0.0, abs=1e-12) and time == pytest.approx(4.0)


def test_pair_distribution_sums_the_two_games():
    pairs = pair_distribution(0.6, 0.1)
    assert sum(pairs.probs) == pytest.approx(1)
    assert pairs.probs[0] == pytest.approx(0.09) and pairs.probs[4] == pytest.approx(0.36)
    assert pairs.mean == pytest.approx(0.65)
    with pytest.raises(ValueError):
        pair_distribution(0.8, 0.3)


def test_a_truth_with_one_outcome_has_no_expected_length():
    with pytest.raises(ValueError, match="single outcome"):
        expectation(SPRT(), pair_distribution(1.0), "pentanomial")
