"""bench.faults judges a run by what it stored, game by game against the clean run, and by its time budget."""

from __future__ import annotations

import dataclasses

from bench import faults


def a_run(**changes) -> faults.Run:
    run = faults.Run(
        name="clean",
        seconds=30.0,
        load=1.0,
        matches={"done": 2},
        games_expected=2,
        games_stored=2,
        bad_matches=[],
        pair_games=2,
        fitted_games=2,
        ratings={"greedy-0": (1510.0, 2, 2, 0), "random-1": (1490.0, 2, 0, 2)},
        charged=0,
        logs={},
        games={("greedy-0,random-1", "s", 0): ("greedy-0", "all-cards-played", 40),
               ("greedy-0,random-1", "s", 1): ("greedy-0", "stuck", 31)},
    )  # fmt: skip
    return dataclasses.replace(run, **changes)


def test_a_game_stored_otherwise_than_in_the_clean_run_is_found():
    clean = a_run()
    assert a_run(name="freeze-worker").differences(clean) == []
    changed = dict(clean.games)
    changed[("greedy-0,random-1", "s", 1)] = ("random-1", "timeout", 12)  # the stall charged to a bot
    [found] = a_run(games=changed).differences(clean)
    assert found.startswith("1 games differ from the clean run's, e.g. ('greedy-0,random-1', 's', 1)")
    missing = {key: value for key, value in clean.games.items() if key[2] == 0}
    assert a_run(games=missing).differences(clean)[0].startswith("1 games differ")
    assert a_run(ratings={}).differences(clean) == ["ratings differ from the clean run's"]


def test_a_match_charged_a_failure_or_a_fault_that_did_not_strike_fails_the_run():
    assert a_run().problems() == []
    assert a_run(charged=2).problems() == ["2 matches charged a failure of their own"]
    assert a_run(trouble=["the full scratch did not strike: timed out"]).problems() == [
        "the full scratch did not strike: timed out"
    ]


def test_the_budgets_are_the_issues():
    assert faults.budget("kill-worker", 100.0) == 130.0
    assert faults.budget("workers-down", 100.0) == 100.0 + faults.WORKERS_DOWN_SECONDS + 10.0
    assert set(faults.FAULTS) < set(faults.DRILLS) and set(faults.FAULT_AT_SHARE) <= set(faults.DRILLS)
    assert faults.SANDBOXED <= set(faults.DRILLS) and set(faults.PRIVATE_SCRATCH_WORKERS) <= set(faults.DRILLS)


def test_the_freeze_drill_names_its_capacity_floor():
    # one of two single-process workers away for the freeze: half its length is added at the least
    assert faults.capacity_floor("freeze-worker", 16.0) == 1 + faults.FREEZE_SECONDS / 2 / 16.0 == 1.25
    assert faults.capacity_floor("kill-worker", 16.0) is None
