"""Rating fit benchmark (issues 4 and 25): the Bradley-Terry fit alone, from counts in memory to ratings with intervals.

    python -m bench.ratings              # every size up to 100,000 versions (a few minutes)
    python -m bench.ratings --quick      # up to 20,000 versions

Leagues: versions with normal strengths (sd 1 nat, about 170 Elo) and about 110 opponents each, drawn either
uniformly from the whole league ("random") or as the 110 versions nearest in strength ("local", what pairing by
closest rating builds), or 90 % nearest and 10 % uniform ("mixed"). Each pair that met played 1 + Poisson(2)
games, 5 % drawn, the rest won by the Bradley-Terry odds. The fit gets one row per pair, as the league reads
them from its pair table.

The clock covers `bradley_terry.fit` (aggregation, ordering, Newton's method, intervals: every player's Elo and
variance and every pair's covariance as arrays), wall and CPU time. "Extra memory" is the peak resident memory
during the fit above what the process held just before it (each case runs in a process of its own). A warm
refit adds 20 ten-game matches and refits from the previous ratings, as the league does after each match. Up to
3,000 versions the dense fit of before issue 25 (`bench/dense_ratings.py`) runs on the same league, and the
sparse fit's ratings and interval half-widths are compared with it; above, estimated half-widths are compared
with exact ones computed for 20 sampled versions by conjugate gradients. Three leagues whose versions retire
compare keeping retired versions in the fit as free players (the league's way) with holding them at their last
rating as fixed anchors (see `retirement_case`). The issue-4 figure (1,000 versions x
1,000,000 games, one row per game) is kept. The load average is printed beside each figure: other processes
slow every figure down.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import scipy.sparse
import scipy.sparse.linalg
from scipy.special import expit

from bench import harness
from bench.dense_ratings import dense_fit
from league.arena.ladder.bradley_terry import ELO_PER_NAT, fit

OPPONENTS = 110
SIZES = (1_000, 3_000, 10_000, 20_000, 100_000)
QUICK_SIZES = (1_000, 3_000, 20_000)
MIXED_SIZES = (1_000, 3_000, 20_000)
DENSE_UP_TO = 3_000
GOALS = {20_000: (2.0, 500.0), 100_000: (15.0, 2000.0)}  # versions: (seconds, extra MB)
ELO_GOAL = 1e-6
EXACT_HALF_WIDTH_GOAL = 1e-6
ESTIMATED_HALF_WIDTH_GOAL = 0.05
ISSUE4 = (1_000, 1_000_000, 5.0)  # versions, games (one row each), seconds
SAMPLED = 20
RETIREMENT_SEEDS = 3


def league(versions: int, pairing: str, seed: int = 0) -> dict[str, np.ndarray]:
    """One row per pair that met (lower index first, sorted), with its wins, losses and draws."""
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0.0, 1.0, versions))
    half = OPPONENTS // 2
    if pairing == "local":
        i = np.repeat(np.arange(versions), half)
        j = i + np.tile(np.arange(1, half + 1), versions)
    else:
        count = versions * half if pairing == "random" else versions * half // 10
        i = rng.integers(0, versions, count)
        j = (i + rng.integers(1, versions, count)) % versions
        if pairing == "mixed":
            near = np.repeat(np.arange(versions), half * 9 // 10)
            i, j = np.r_[i, near], np.r_[j, near + np.tile(np.arange(1, half * 9 // 10 + 1), versions)]
    keep = j < versions
    i, j = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
    keys = np.unique(i * versions + j)
    i, j = keys // versions, keys % versions
    games = 1 + rng.poisson(2.0, len(i))
    draws = rng.binomial(games, 0.05)
    wins_i = rng.binomial(games - draws, expit(theta[i] - theta[j]))
    return {"a": i, "b": j, "wins_a": wins_i, "wins_b": games - draws - wins_i, "draws": draws}


def per_game_rows(versions: int, games: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Issue 4's form: one row per game, opponents uniform."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, versions)
    a = rng.integers(0, versions, games)
    b = (a + rng.integers(1, versions, games)) % versions
    draw = rng.random(games) < 0.05
    a_won = ~draw & (rng.random(games) < expit(theta[a] - theta[b]))
    return {"a": a, "b": b, "wins_a": a_won, "wins_b": ~draw & ~a_won, "draws": draw}


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as clear:  # "5": reset the peak resident size (Linux >= 4.0)
        clear.write("5")


def measured(call: Callable[[], object]) -> tuple[object, dict]:
    """Run `call` once: its result, wall and CPU seconds, and the extra memory its peak took."""
    before = resident_mb()
    reset_peak()
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    figures = {
        "seconds": round(time.perf_counter() - wall, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
        "extra_mb": round(max(0.0, peak_mb() - before), 1),
        "load": round(os.getloadavg()[0], 2),
    }
    return result, figures


def sparse_case(versions: int, pairing: str) -> dict:
    data = league(versions, pairing)
    players = list(range(versions))
    fitted, figures = measured(lambda: fit(players, **data))
    figures["pairs"] = len(data["a"])
    # The league refits after every match: 20 more matches of 10 games, then a refit from the stored ratings.
    rng = np.random.default_rng(1)
    a = rng.integers(0, versions - 1, 20)
    extra = {
        "a": np.r_[data["a"], a],
        "b": np.r_[data["b"], a + 1],
        "wins_a": np.r_[data["wins_a"], rng.integers(0, 11, 20)],
        "draws": np.r_[data["draws"], np.zeros(20, dtype=np.int64)],
    }
    extra["wins_b"] = np.r_[data["wins_b"], 10 - extra["wins_a"][-20:]]
    start = dict(zip(players, fitted.elo.tolist(), strict=True))
    _, warm = measured(lambda: fit(players, **extra, start=start))
    figures["warm_seconds"] = warm["seconds"]
    figures["warm_cpu_seconds"] = warm["cpu_seconds"]
    figures["exact"] = bool(fitted.exact.all())
    if not fitted.exact.all():
        figures["sampled_half_width_error"] = sampled_half_width_error(fitted, data)
    return figures


def sampled_half_width_error(whole, data: dict[str, np.ndarray], prior_games: float = 2.0) -> float:
    """Largest relative error of the estimated half-widths of SAMPLED versions, against exact ones by CG.

    The variance of version k's offset from the mean is e' L^+ e with e = unit_k - 1/n and L the Laplacian of
    the pair weights (games with the prior's virtual draws, times p(1 - p)) at the fitted ratings.
    """
    i, j = data["a"], data["b"]
    n = len(whole.elo)
    opponents = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    games = data["wins_a"] + data["wins_b"] + data["draws"] + prior_games / opponents[i] + prior_games / opponents[j]
    theta = (whole.elo - whole.elo.mean()) / ELO_PER_NAT
    p = expit(theta[i] - theta[j])
    weight = games * p * (1.0 - p)
    upper = scipy.sparse.csr_array((weight, (i, j)), shape=(n, n))
    degree = np.bincount(i, weight, n) + np.bincount(j, weight, n)
    laplacian = scipy.sparse.diags_array(degree) - upper - upper.T
    jacobi = scipy.sparse.diags_array(1.0 / degree)
    errors = []
    for k in np.random.default_rng(2).choice(n, SAMPLED, replace=False):
        e = np.full(n, -1.0 / n)
        e[k] += 1.0
        x, info = scipy.sparse.linalg.cg(laplacian, e, rtol=1e-10, maxiter=10_000, M=jacobi)
        if info != 0:
            raise RuntimeError(f"CG did not converge for version {k}")
        exact = ELO_PER_NAT**2 * float(e @ (x - x.mean()))
        errors.append(abs(math.sqrt(whole.variance[k] / exact) - 1.0))
    return float(max(errors))


def retirement_case(seed: int, bots: int = 400, epochs: int = 6, matches: int = 1_500, games: int = 10) -> dict:
    """A league whose versions retire, fitted with the retired versions as free players and as fixed anchors.

    Bots arrive over `epochs`; each epoch a bot uploads a new version (40 %), which supersedes its last one, or
    retires (5 %); `matches` matches of `games` games are played among the versions active then. When a version
    stops playing, the fit of that moment is its anchor. At the end the league's fit (every version free) and the
    anchored fit (`dense_fit(fixed=...)`) are compared on the active versions, in units of their standard error.
    """
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, bots)
    arrival = rng.integers(0, epochs - 1, bots)
    start, end, strength, latest, uploads = [], [], [], {}, np.zeros(bots)
    for epoch in range(epochs):
        for bot in np.flatnonzero(arrival <= epoch):
            if latest.get(bot, 0) is None:
                continue  # retired
            if bot not in latest or rng.random() < 0.4:
                if bot in latest:
                    end[latest[bot]] = epoch
                latest[bot] = len(start)
                start.append(epoch)
                end.append(epochs)
                strength.append(base[bot] + 0.15 * uploads[bot])  # each version a little stronger
                uploads[bot] += 1
            elif rng.random() < 0.05:
                end[latest[bot]], latest[bot] = epoch, None
    start_of, end_of, strength_of = np.array(start), np.array(end), np.array(strength)
    versions = len(start)
    a, b, wins = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    anchors: dict[int, float] = {}
    for epoch in range(epochs):
        active = np.flatnonzero((start_of <= epoch) & (epoch < end_of))
        x, y = active[rng.integers(0, len(active), matches)], active[rng.integers(0, len(active), matches)]
        x, y = x[x != y], y[x != y]
        a, b = np.r_[a, x], np.r_[b, y]
        wins = np.r_[wins, rng.binomial(games, expit(strength_of[x] - strength_of[y]))]
        now = fit(list(range(versions)), a, b, wins_a=wins, wins_b=games - wins)
        for version in np.flatnonzero(end_of == epoch + 1):
            if epoch + 1 < epochs:
                anchors[int(version)] = float(now.elo[version])
    free = now
    anchored, _, _ = dense_fit(list(range(versions)), a, b, wins_a=wins, wins_b=games - wins, fixed=anchors)
    active = np.flatnonzero(end_of == epochs)
    moved = (free.elo - anchored)[active]
    error = np.sqrt(free.variance[active])
    return {
        "versions": versions,
        "retired": len(anchors),
        "active": len(active),
        "games": int(len(a) * games),
        "most_standard_errors": float(np.max(np.abs(moved) / error)),
        "shift_elo": float(moved.mean()),
        "most_standard_errors_after_shift": float(np.max(np.abs(moved - moved.mean()) / error)),
        "median_standard_error": float(np.median(error)),
    }


def dense_case(versions: int, pairing: str) -> dict:
    data = league(versions, pairing)
    players = list(range(versions))
    (elo, variance, _), figures = measured(lambda: dense_fit(players, **data))
    sparse = fit(players, **data)
    figures["elo_error"] = float(np.max(np.abs(sparse.elo - elo)))
    figures["half_width_error"] = float(np.max(np.abs(np.sqrt(sparse.variance / variance) - 1.0)))
    figures["exact"] = bool(sparse.exact.all())
    return figures


def issue4_case() -> dict:
    versions, games, _ = ISSUE4
    data = per_game_rows(versions, games)
    _, figures = measured(lambda: fit(list(range(versions)), **data))
    return figures


def in_own_process(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "bench.ratings", "--case", *args],
        cwd=harness.ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"case {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_case(kind: str, versions: int, pairing: str) -> dict:
    if kind == "issue4":
        return issue4_case()
    if kind == "retirement":
        return retirement_case(seed=versions)
    return (sparse_case if kind == "sparse" else dense_case)(versions, pairing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="sizes up to 20,000 versions only")
    parser.add_argument("--case", nargs=3, metavar=("KIND", "VERSIONS", "PAIRING"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        kind, versions, pairing = args.case
        print(json.dumps(run_case(kind, int(versions), pairing)))
        return

    sizes = QUICK_SIZES if args.quick else SIZES
    figures: dict = {"issue4": in_own_process("issue4", "0", "-")}
    print(
        "clock: one bradley_terry.fit() call in a process of its own, from counts in memory to every Elo, variance "
        "and pair covariance, wall (and CPU) seconds; the league is made beforehand; load: 1-minute average then"
    )
    print(
        f"{'pairing':8} {'versions':>9} {'pairs':>10} {'fit s':>7} {'CPU s':>7} {'extra MB':>9} {'warm s':>7} "
        f"{'intervals':>10} {'dense s':>8} {'dense MB':>9} {'max dElo':>9} {'half-width err':>15} {'load':>5}"
    )
    for pairing in ("random", "local", "mixed"):
        for versions in sizes if pairing != "mixed" else MIXED_SIZES:
            row = in_own_process("sparse", str(versions), pairing)
            if versions <= DENSE_UP_TO:
                row["dense"] = in_own_process("dense", str(versions), pairing)
            figures[f"{pairing}[{versions}]"] = row
            print(table_row(pairing, versions, row))
    figures["retirement"] = [in_own_process("retirement", str(seed), "-") for seed in range(RETIREMENT_SEEDS)]
    print()
    for line in growth(figures, sizes):
        print(line)
    for ok, text in judgements(figures, sizes):
        print(f"{harness.verdict(ok)}  {text}")
    print(json.dumps(figures))


def table_row(pairing: str, versions: int, row: dict) -> str:
    dense = row.get("dense", {})
    error = dense.get("half_width_error", row.get("sampled_half_width_error", 0.0 if row["exact"] else math.nan))
    return (
        f"{pairing:8} {versions:>9,} {row['pairs']:>10,} {row['seconds']:>7.2f} {row['cpu_seconds']:>7.2f} "
        f"{row['extra_mb']:>9.1f} {row['warm_seconds']:>7.2f} {'exact' if row['exact'] else 'estimated':>10} "
        f"{dense.get('seconds', math.nan):>8.2f} {dense.get('extra_mb', math.nan):>9.1f} "
        f"{dense.get('elo_error', math.nan):>9.1e} {error:>15.1e} {row['load']:>5}"
    )


def judgements(figures: dict, sizes: tuple[int, ...]) -> list[tuple[bool, str]]:
    """(met, what) for every goal: issue 4's refit time, issue 25's times, memory and accuracy."""
    versions, games, seconds = ISSUE4
    issue4 = figures["issue4"]
    said = [
        (
            issue4["seconds"] <= seconds,
            f"issue 4: {versions:,} versions x {games:,} games (one row per game) <= {seconds:.0f} s: "
            f"{issue4['seconds']:.2f} s ({issue4['cpu_seconds']:.2f} s CPU), load {issue4['load']}",
        )
    ]
    for pairing in ("random", "local"):
        for versions, (seconds, megabytes) in GOALS.items():
            if versions in sizes:
                row = figures[f"{pairing}[{versions}]"]
                said.append(
                    (
                        row["seconds"] <= seconds,
                        f"{pairing} pairings, {versions:,} versions, fit with intervals <= {seconds:.0f} s: "
                        f"{row['seconds']:.2f} s ({row['cpu_seconds']:.2f} s CPU), load {row['load']}",
                    )
                )
                said.append(
                    (
                        row["extra_mb"] <= megabytes,
                        f"{pairing} pairings, {versions:,} versions, extra memory <= {megabytes:.0f} MB: "
                        f"{row['extra_mb']:.0f} MB",
                    )
                )
    for seed, row in enumerate(figures["retirement"]):
        # An interval is for a version's offset from the mean; the anchors bring the gauge of older fits, a common
        # shift that changes no difference between ratings. Judged on the offsets, the raw figure printed beside.
        said.append(
            (
                row["most_standard_errors_after_shift"] <= 1.0,
                f"retired versions kept as free players rather than fixed anchors (league {seed}: {row['versions']:,} "
                f"versions, {row['retired']:,} retired, {row['games']:,} games): the {row['active']} active versions' "
                f"offsets from their mean move by at most their own standard error: "
                f"{row['most_standard_errors_after_shift']:.2f} of it (all shifted by {row['shift_elo']:+.1f} Elo; "
                f"with the shift, at most {row['most_standard_errors']:.2f}; median standard error "
                f"{row['median_standard_error']:.0f} Elo)",
            )
        )
    for name, row in figures.items():
        if name == "retirement":
            continue
        if "dense" in row:
            dense = row["dense"]
            limit = EXACT_HALF_WIDTH_GOAL if dense["exact"] else ESTIMATED_HALF_WIDTH_GOAL
            kind = "exact" if dense["exact"] else "estimated"
            said.append(
                (
                    dense["elo_error"] <= ELO_GOAL,
                    f"{name}: ratings within {ELO_GOAL:g} Elo of the dense fit: {dense['elo_error']:.1e}",
                )
            )
            said.append(
                (
                    dense["half_width_error"] <= limit,
                    f"{name}: {kind} half-widths within {limit:g} of the dense fit's, relative: "
                    f"{dense['half_width_error']:.1e}",
                )
            )
        elif "sampled_half_width_error" in row:
            error = row["sampled_half_width_error"]
            said.append(
                (
                    error <= ESTIMATED_HALF_WIDTH_GOAL,
                    f"{name}: estimated half-widths within {ESTIMATED_HALF_WIDTH_GOAL:g} of exact ones "
                    f"({SAMPLED} versions sampled), relative: {error:.1e}",
                )
            )
    return said


def growth(figures: dict, sizes: tuple[int, ...]) -> list[str]:
    """How time and memory grow with versions and pairs, between the two largest sizes (reported, not judged)."""
    lines = []
    big = [versions for versions in sizes if versions >= 10_000]
    for pairing in ("random", "local"):
        if len(big) >= 2:
            small, large = figures[f"{pairing}[{big[0]}]"], figures[f"{pairing}[{big[-1]}]"]
            slope = math.log(large["cpu_seconds"] / small["cpu_seconds"]) / math.log(large["pairs"] / small["pairs"])
            per_pair = [row["extra_mb"] * 2**20 / row["pairs"] for row in (small, large)]
            lines.append(
                f"growth, {pairing} pairings, {big[0]:,} to {big[-1]:,} versions (pairs grow alike): CPU time ~ "
                f"pairs^{slope:.2f}; extra memory {per_pair[0]:.0f} then {per_pair[1]:.0f} bytes per pair"
            )
    return lines


if __name__ == "__main__":
    main()
