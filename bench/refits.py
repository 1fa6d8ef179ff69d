"""Refit rate: how many refit tasks a large tournament costs, and how fresh its ratings are once it ends.

    python -m bench.refits                        # 45 entrants, double round robin: 1,980 matches of 8 games
    python -m bench.refits --bots 20 --games 4

The tournament is played by the fault drill's set-up (bench/faults.py: a PostgreSQL and a Redis of its own, two
Celery workers of one pool process each and a beat, the league's default settings), clean. Counted from the workers'
logs: every refit task a worker received (those that fitted and those that found nothing to do). Measured from the
database: when the last match was stored (its `finished_at`) and when the fit covering every game was committed
(`RatingFit.fitted_at`).

Goals (issue 21): refit tasks <= 1 per 10 stored matches (counted over the whole run, the tail included, so
stricter than "while it streams"), and ratings fresh <= 2 s after the last match.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from bench import harness
from bench.faults import Drill

REFIT_TASK = re.compile(r"Task league\.arena\.tasks\.refit_ratings\[[0-9a-f-]+\] received")
MATCHES_PER_REFIT = 10  # at most one refit task per this many stored matches
FRESH_SECONDS = 2.0  # the ratings cover every game this soon after the last match is stored


def measure(drill: Drill) -> dict:
    """Play the tournament clean and read the refit figures."""
    run = drill.run("refits", None, timeout=1800)
    problems = run.problems()
    tasks = sum(len(REFIT_TASK.findall(text)) for text in run.logs.values())
    ((matches, last_stored, fitted_at),) = drill.query(
        "SELECT count(*), max(m.finished_at), (SELECT max(fitted_at) FROM arena_ratingfit) FROM arena_match m"
    )
    return {
        "seconds": run.seconds,
        "load": run.load,
        "matches": matches,
        "games": run.games_stored,
        "refit_tasks": tasks,
        "fresh_seconds": (fitted_at - last_stored).total_seconds(),
        "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=45, help="tournament entrants (double round robin)")
    parser.add_argument("--games", type=int, default=8, help="games per pairing")
    parser.add_argument("--house", default="random,greedy", help="house bots the entrants are copies of")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="refit-bench-") as folder:
        with Drill(Path(folder), args.bots, args.games, args.house) as drill:
            result = measure(drill)
    matches, tasks = result["matches"], result["refit_tasks"]
    print(
        f"{matches} matches, {result['games']} games in {result['seconds']:.1f} s "
        f"({matches / result['seconds']:.1f} matches/s), 2 workers of 1 process each; load {harness.loadavg()} "
        f"(max during the run {result['load']:.2f})"
    )
    print("counted: refit tasks the workers received over the whole run; freshness: the covering fit's commit "
          "less the last match's")  # fmt: skip
    if result["problems"]:
        print(f"{harness.verdict(False)}  the tournament itself: {'; '.join(result['problems'])}")
    print(
        f"{harness.verdict(tasks * MATCHES_PER_REFIT <= matches)}  refit tasks: {tasks} for {matches} matches "
        f"(one per {matches / max(tasks, 1):.1f} matches; goal: one per {MATCHES_PER_REFIT} or fewer)"
    )
    print(
        f"{harness.verdict(result['fresh_seconds'] <= FRESH_SECONDS)}  ratings fresh {result['fresh_seconds']:.2f} s "
        f"after the last match (goal <= {FRESH_SECONDS:.0f} s)"
    )


if __name__ == "__main__":
    main()
