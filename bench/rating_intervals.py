"""Benchmark: how far a real league's estimated interval half-widths are from exact ones (issue 25).

    python -m bench.rating_intervals --database arena_scale_10k     # a database bench/scale.py filled

Reads the ladder's pair counts from the database, fits them as a refit does, and takes the Hessian's pair weights at
the optimum. For a sample of versions of the largest group (those that met at most 3 opponents, those that met 4 to
10, and some at random), exact variances are solved by conjugate gradients (relative residual 1e-8), and the
estimated half-widths are compared with them three ways: the second-order series alone, the series with the slow
modes added, and what the fit reports (versions with few opponents eliminated first; slow modes added where the
check fails and the factor is too dear). Printed: the largest and the 90th-percentile relative error per sample and
way, and the time of the fit's variances step. `--every-few` takes every version of the largest group with at most
30 opponents and 1,000 others at random instead (minutes at 10,000 bots).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from bench import harness

SAMPLES = (("at most 3 opponents", 0, 3, 300), ("4 to 10 opponents", 4, 10, 100), ("at random", 0, 10**9, 100))
# --every-few: every version with few opponents, and a sample of the rest (minutes at 10,000 bots)
EVERY_FEW = (
    ("at most 3 opponents", 0, 3, None), ("4 to 10 opponents", 4, 10, None), ("11 to 30 opponents", 11, 30, None),
    ("more than 30 (sampled)", 31, 10**9, 1000),
)  # fmt: skip
SOLVED_AT_ONCE = 400  # columns per conjugate-gradient solve: memory grows with them


def optimum(postgres: str, database: str, game: str) -> tuple[object, np.ndarray]:
    """The graph of the game's ladder and its pair weights at the fit's optimum."""
    os.environ["DATABASE_URL"] = f"{postgres.rstrip('/')}/{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from league.arena.ladder import refits
    from league.arena.ladder.bradley_terry import newton
    from league.arena.ladder.pools import RatingPool

    captured: dict[str, object] = {}
    variances = newton.variances

    def capture(graph, weight, diagonal, preconditioner=None, warm=None):  # type: ignore[no-untyped-def]
        captured.update(graph=graph, weight=weight.copy(), diagonal=diagonal.copy())
        return variances(graph, weight, diagonal, preconditioner, warm)

    newton.variances = capture
    try:
        pool = RatingPool.ladder(game)
        refits.whole_fit(refits.read_counts(pool), pool.stored_elos())
    finally:
        newton.variances = variances
    return captured["graph"], captured["weight"]


def exact_variances(
    graph, weight: np.ndarray, degree: np.ndarray, players: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The variances of ``players``' offsets by conjugate gradients (relative residual 1e-8), and which converged."""
    from league.arena.ladder.bradley_terry import variances

    kept = variances._CHECK_RTOL, variances._CHECK_MAX_ITERATIONS
    variances._CHECK_RTOL, variances._CHECK_MAX_ITERATIONS = 1e-8, 3000
    exact, converged = np.empty(len(players)), np.empty(len(players), dtype=bool)
    for start in range(0, len(players), SOLVED_AT_ONCE):
        chunk = slice(start, start + SOLVED_AT_ONCE)
        rhs = np.zeros((graph.n, len(players[chunk])))
        rhs[players[chunk], np.arange(len(players[chunk]))] = 1.0
        rhs = graph.centre(rhs)
        solution, converged[chunk] = variances._laplacian_solve(graph, weight, degree, rhs)
        exact[chunk] = np.einsum("ij,ij->j", rhs, solution)
    variances._CHECK_RTOL, variances._CHECK_MAX_ITERATIONS = kept  # the fit's own check, timed after this
    return exact, converged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True, help="a PostgreSQL database bench/scale.py filled")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432", help="server URL, no database")
    parser.add_argument("--game", default="face-to-face")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--every-few", action="store_true", help="every version with at most 30 opponents, 1,000 others at random"
    )
    args = parser.parse_args()

    from league.arena.ladder.bradley_terry import variances

    graph, weight = optimum(args.postgres, args.database, args.game)
    n = graph.n
    degree = graph.degree(weight)
    opponents = np.bincount(graph.i, minlength=n) + np.bincount(graph.j, minlength=n)
    largest = graph.group == np.argmax(graph.group_size)
    rng = np.random.default_rng(args.seed)
    samples = []
    for name, low, high, size in EVERY_FEW if args.every_few else SAMPLES:
        pool = np.flatnonzero(largest & (opponents >= max(low, 1)) & (opponents <= high))
        samples.append((name, pool if size is None else rng.choice(pool, min(size, len(pool)), replace=False)))
    players = np.concatenate([sample for _, sample in samples])
    exact, converged = exact_variances(graph, weight, degree, players)

    series = variances.estimated_variances(graph, weight)
    groups = ~graph.cheap & graph.group_size.astype(bool)
    with_modes = series + variances.slow_mode_correction(graph, weight, groups)
    began = time.perf_counter()
    reported, is_exact, _, _ = variances.variances(graph, weight, degree)
    took = time.perf_counter() - began

    print(
        f"{args.database} {args.game}: {n:,} rated versions, {len(graph.i):,} pairs, largest group "
        f"{int(largest.sum()):,}; {int(((opponents > 0) & (opponents <= 3)).sum()):,} versions met at most 3 "
        f"opponents; exact by conjugate gradients for {len(players)} versions ({int(converged.sum())} "
        f"converged); the fit's variances step took {took:.2f} s (load {harness.loadavg()})"
    )
    print(f"{'sample':30s} {'series alone':>22s} {'+ slow modes':>22s} {'as the fit reports':>22s}")
    start = 0
    for name, sample in samples:
        cells = []
        for estimate in (series, with_modes, reported):
            error = np.abs(np.sqrt(estimate[sample] / exact[start : start + len(sample)]) - 1.0)
            cells.append(f"max {100 * error.max():5.1f} % p90 {100 * np.quantile(error, 0.9):4.1f} %")
        print(f"{name + f' ({len(sample)})':30s} " + " ".join(f"{cell:>22s}" for cell in cells))
        start += len(sample)
    exact_share = float(is_exact[largest].mean())
    print(f"the fit reports the largest group's variances as {'exact' if exact_share == 1 else 'estimated'}")


if __name__ == "__main__":
    main()
