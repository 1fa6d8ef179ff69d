"""Fault tests: a tournament of 210 matches survives each fault by itself, on services of its own.

PostgreSQL and Redis are started by the drill (bench/faults.py) in a temporary folder on free ports, with two
Celery workers and a beat running the league's default settings; the machine's shared PostgreSQL and Redis are
never touched. One clean run is shared by every fault: each faulty run must finish by itself, store every match
exactly once, leave none queued or running, store every game as the clean run did (same seeds: same winner,
termination and turns), end with the clean run's ratings, and say in its logs what happened, with time and level.
What must hold at any speed is checked here; the time budgets are the bench's (`python -m bench.faults`), since a
wall-clock budget fails whenever the shared machine is busy. The workers are away for 20 s here, not the drill's
minute: already four leases and several upkeep rounds, so the same recovery runs.
"""

from __future__ import annotations

import re
import shutil

import pytest

from bench import faults as drill_module

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (drill_module.PG_BIN / "initdb").exists() or shutil.which("redis-server") is None,
        reason="needs PostgreSQL 15's binaries and redis-server to start services of its own",
    ),
]

BOTS, GAMES = 15, 60  # a double round robin: 210 matches of 60 games (30 deals, seats swapped)
WORKERS_DOWN_SECONDS = 20.0
STAMP = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (WARNING|ERROR|INFO) "

# What each fault must leave in the workers' logs: a plain sentence with the match (or task) it concerns.
SAYS = {
    # the upkeep, after a lease, or the restarted worker, at its first task (its own node's process is gone)
    "kill-worker": STAMP + r".*match \d+: (worker \S+ sent no heartbeat for \d+ s|its process \S+ is gone) "
    r"\(killed\?\); match re-sent",
    "restart-redis": STAMP + r".*re-sent \d+ queued matches whose message was lost",
    "crash-postgres": STAMP + r".*(match \d+|play_match\(\d+\)|refit_ratings\(.*\)|upkeep\(\)).*: database unavail",
    "workers-down": None,  # whether a match was mid-game when both died is chance: the checks below suffice
}


@pytest.fixture(scope="module", autouse=True)
def _shorter_outage():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drill_module, "WORKERS_DOWN_SECONDS", WORKERS_DOWN_SECONDS)
        yield


@pytest.fixture(scope="module")
def drill(tmp_path_factory):
    with drill_module.Drill(tmp_path_factory.mktemp("drill"), BOTS, GAMES, "random,greedy") as drill:
        yield drill


@pytest.fixture(scope="module")
def clean(drill):
    run = drill.run("clean", None)
    assert run.problems() == []
    assert sum(run.matches.values()) == BOTS * (BOTS - 1) >= 200
    return run


def all_logs(run: drill_module.Run) -> str:
    return "\n".join(run.logs.values())


def test_a_clean_run_stores_everything_once(clean):
    assert len(clean.ratings) == BOTS
    assert len(clean.games) == clean.games_expected
    assert "raised unexpected" not in all_logs(clean)


@pytest.mark.parametrize("fault", list(drill_module.FAULTS))
def test_the_tournament_survives(drill, clean, fault):
    run = drill.run(fault, drill_module.FAULTS[fault])
    assert run.problems() == []
    assert run.differences(clean) == []  # game by game, and the ratings
    logs = all_logs(run)
    assert "raised unexpected" not in logs  # no task failed: each retried, or its work was re-derived
    if SAYS[fault]:
        assert re.search(SAYS[fault], logs, re.MULTILINE), logs[-5000:]
