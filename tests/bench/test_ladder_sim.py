"""bench.ladder_sim on a small league: the simulation keeps its books and drives both schedulers."""

from __future__ import annotations

import math

import numpy as np

from bench import ladder_sim


def test_a_small_simulated_league_keeps_its_counts_and_rates_everyone():
    truth = ladder_sim.true_strengths(8, np.random.default_rng(0))
    league = ladder_sim.League(dict(truth), ladder_sim.new_scheduler, np.random.default_rng(1), pending_limit=2)
    for _ in range(40):
        league.step()
    assert len(league.pending) <= 2
    finished = sum(league.matches.values()) // 2
    assert finished == 40
    assert sum(league.games.values()) == 10 * finished
    # `met` counts pending matches as well as finished ones
    assert sum(league.met.values()) == finished + len(league.pending)
    assert set(league.fitted) == set(truth)
    assert all(math.isfinite(league.margin(bot)) for bot in truth)
    # each version plays one match at a time
    busy = [bot for pair in league.pending for bot in pair]
    assert len(busy) == len(set(busy))


def test_both_schedulers_report_the_issues_figures():
    today = ladder_sim.simulate("today", bots=8, matches=40, seed=0, pending=2, newcomer_cap=3)
    new = ladder_sim.simulate("new", bots=8, matches=40, seed=0, pending=2, newcomer_cap=3)
    for figures in (today, new):
        assert -1.0 <= figures.spearman <= 1.0
        assert 1 <= figures.distinct_min <= 7 and 0.0 < figures.share_max <= 1.0
        assert len(figures.newcomers) == 9
    # a new league of 8: the new scheduler spreads each bot's matches over more opponents than closest-rating does
    assert new.distinct_min > today.distinct_min


def test_closest_rating_is_todays_pairing():
    members = [
        ladder_sim.pairing.Member("a", 1600.0, 1.0, 3.0),
        ladder_sim.pairing.Member("b", 1500.0, 1.0, 0.0),
        ladder_sim.pairing.Member("c", 1590.0, 1.0, 1.0),
        ladder_sim.pairing.Member("d", 1390.0, 1.0, 2.0),
    ]
    # b has fewest matches; closest to 1500 is c (90) before d (110); then d is left with a.
    assert ladder_sim.closest_rating(members, {}, 5, np.random.default_rng()) == [("b", "c"), ("d", "a")]
