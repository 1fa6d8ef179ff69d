"""Rating refit benchmark for issue 4: seconds to refit every Elo from scratch.

    python -m bench.ratings                  # the issue's size (1,000 versions x 1,000,000 games) and others
    python -m bench.ratings --quick          # only the uniform-opponent runs up to 1,000 versions (~15 s)

Synthetic ladder: versions with normal strengths (sd 1 nat, about 170 Elo), opponents drawn uniformly
(or, for "chain", among the 10 next-stronger versions, as closest-rating pairing does), every game won
or lost by the Bradley-Terry odds, 5 % draws. A run is one full refit:
`fit_counts` on one row per game (so aggregation to pairs is timed too), `fit_counts` on counts already
aggregated per pair (what the league passes in), `fit_ratings` on a list of Python tuples, or
`fit_counts` on one row per game of the chain. `run()` returns the figures as a dict.
BLAS runs on `league.arena.ladder.bradley_terry.BLAS_THREADS` threads (1) during a fit. The load average is printed
alongside, since other processes on the machine slow every figure down.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable

import numpy as np

from bench import harness
from league.arena.ladder.bradley_terry import fit_counts, fit_ratings

TARGET = (1_000, 1_000_000)
TARGET_SECONDS = 5.0
CHAIN_REACH = 10


def synthetic_games(versions: int, games: int, chain: bool = False, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0.0, 1.0, versions))
    if chain:
        a = rng.integers(0, versions - CHAIN_REACH, games)
        b = a + rng.integers(1, CHAIN_REACH + 1, games)
    else:
        a = rng.integers(0, versions, games)
        b = (a + rng.integers(1, versions, games)) % versions
    u = rng.random(games)
    draw = u < 0.05
    a_won = ~draw & (rng.random(games) < 1.0 / (1.0 + np.exp(theta[b] - theta[a])))
    return {"a": a, "b": b, "wins_a": a_won, "wins_b": ~draw & ~a_won, "draws": draw}


def aggregated(rows: dict[str, np.ndarray], versions: int) -> dict[str, np.ndarray]:
    """One row per ordered pair with summed counts, as a SQL GROUP BY would return them."""
    keys, inverse = np.unique(rows["a"] * versions + rows["b"], return_inverse=True)
    counts = {
        name: np.bincount(inverse, rows[name], len(keys)).astype(np.int64) for name in ("wins_a", "wins_b", "draws")
    }
    return {"a": keys // versions, "b": keys % versions, **counts}


def timed(function: Callable[[], object], repeats: int) -> float:
    """Best wall-clock seconds of `repeats` calls (the least disturbed by other processes)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def refit_seconds(versions: int, games: int, form: str, repeats: int) -> float:
    rows = synthetic_games(versions, games, chain=form == "chain")
    players = list(range(versions))
    if form == "tuples":
        score = np.where(rows["wins_a"], 1.0, np.where(rows["draws"], 0.5, 0.0))
        results = list(zip(rows["a"].tolist(), rows["b"].tolist(), score.tolist(), strict=True))
        return timed(lambda: fit_ratings(results), repeats)
    data = aggregated(rows, versions) if form == "pairs" else rows
    return timed(
        lambda: fit_counts(
            players, data["a"], data["b"], wins_a=data["wins_a"], wins_b=data["wins_b"], draws=data["draws"]
        ),
        repeats,
    )


def run(quick: bool = False, repeats: int = 3) -> dict:
    """Refit times in seconds, keyed by versions x games and input form; the issue's figure is `target_s`."""
    cases = [(100, 10_000, "rows"), (1_000, 100_000, "rows"), (*TARGET, "rows"), (*TARGET, "pairs")]
    if not quick:
        cases += [(*TARGET, "tuples"), (*TARGET, "chain"), (5_000, 1_000_000, "rows"), (5_000, 1_000_000, "chain")]
    figures: dict = {
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    for versions, games, form in cases:
        figures[f"refit_s[{versions}x{games},{form}]"] = round(
            refit_seconds(versions, games, form, repeats if versions <= 1_000 else 1), 3
        )
    figures["target_s"] = figures[f"refit_s[{TARGET[0]}x{TARGET[1]},rows]"]
    figures["target_ok"] = figures["target_s"] <= TARGET_SECONDS
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the slow cases")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many refits (default 3)")
    args = parser.parse_args()
    figures = run(quick=args.quick, repeats=args.repeats)
    for key, value in figures.items():
        print(f"{key:40} {value}")
    print(
        "clock: one fit_counts (or fit_ratings) call in this process, the maths of a refit without its database "
        "reads and writes, wall time, the best of --repeats; the synthetic games are made beforehand"
    )
    print(
        f"{harness.verdict(figures['target_ok'])}  rating refit, {TARGET[0]:,} versions x {TARGET[1]:,} games "
        f"<= {TARGET_SECONDS:.0f} s: {figures['target_s']:.2f} s"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
