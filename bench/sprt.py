"""Version tests (issue 23): do tests take as long as the SPRT's theory says, and does expert beat greedy?

    python -m bench.sprt                       # simulated tests, real house-bot pairs, and the CLI's expert test
    python -m bench.sprt --only simulated      # just the simulations (a few minutes)
    python -m bench.sprt --tests 20 --reference-pairs 2000

Goals, each judged PASS or MISS:
- the average length of repeated tests is within 20% of the theoretical expected length for the true difference
  (`bots.sprt.theory`: Wald's Brownian approximation with the bounds moved out by the expected overshoot), both
  on simulated results with a known truth and on real games between house bots, whose truth is estimated from a
  separate reference run of --reference-pairs pairs on other deals;
- `python -m bots sprt house:expert house:greedy --game face-to-face` (the default test) reaches H1.

Clocks: "s" columns are wall time of that part alone (simulations: the SPRT's own arithmetic; real pairs: playing
the games in this process, house bots unsandboxed as the CLI plays them; the CLI goal: the whole command).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import games
from bench.harness import ROOT, loadavg, verdict
from bots.match import BotSpec, play_games
from bots.sprt import SPRT, Counts, Status
from bots.sprt.distribution import Distribution, empirical
from bots.sprt.gsprt import NELO_PER_T, logistic_score
from bots.sprt.play import Contest, run_test
from bots.sprt.simulation import pair_distribution, simulate
from bots.sprt.theory import expectation

TOLERANCE = 0.20
BATCH = 8  # the CLI's default


@dataclass(frozen=True)
class Scenario:
    name: str
    test: SPRT
    truth: Distribution
    kind: str
    runs: int


def normalized_pairs(nelo: float) -> Distribution:
    """Pairs of independent games without draws whose normalized Elo (per game) is `nelo`."""
    # one game's score is 0 or 1, so sigma = sqrt(s (1 - s)) and t = (s - 1/2) / sigma; solve for s
    t = nelo / NELO_PER_T
    score = 0.5 + 0.5 * t / (1 + t * t) ** 0.5
    return pair_distribution(score)


def no_draw_pairs(lose_both: float, split: float, win_both: float) -> Distribution:
    """Face to Face pairs as they come from duplicate deals: LL, LW and WW only, in any proportion."""
    return Distribution((0.0, 0.25, 0.5, 0.75, 1.0), (lose_both, 0.0, split, 0.0, win_both))


def coop_deals(win: float, draw: float) -> Distribution:
    return Distribution((0.0, 0.5, 1.0), (1 - win - draw, draw, win))


def scenarios(runs: int) -> list[Scenario]:
    logistic = SPRT(0, 10, elo_model="logistic")
    default = SPRT()
    return [
        Scenario("logistic [0,10], true +20", logistic, pair_distribution(logistic_score(20)), "pentanomial", runs),
        Scenario("logistic [0,10], true -10", logistic, pair_distribution(logistic_score(-10)), "pentanomial", runs),
        Scenario("logistic [0,10], true +5", logistic, pair_distribution(logistic_score(5)), "pentanomial", runs),
        Scenario("normalized [0,5], true nElo +10", default, normalized_pairs(10), "pentanomial", runs // 4),
        Scenario("normalized [0,5], true nElo -5", default, normalized_pairs(-5), "pentanomial", runs // 4),
        Scenario("normalized [0,5], expert-like pairs", default, no_draw_pairs(0.02, 0.26, 0.72), "pentanomial", runs),
        Scenario(
            "co-op logistic [0,20], 30% draws, true +30",
            SPRT(0, 20, elo_model="logistic"),
            coop_deals(win=logistic_score(30) - 0.15, draw=0.3),
            "trinomial",
            runs,
        ),
    ]


def judge(mean: float, theory: float) -> str:
    return verdict(abs(mean - theory) <= TOLERANCE * theory)


def run_simulated(runs: int, seed: int) -> bool:
    print(f"\n== Simulated tests (batch {BATCH} pairs; load average {loadavg()})")
    print(f"{'scenario':<44} {'runs':>5} {'mean pairs':>11} {'theory':>9} {'ratio':>6} {'P(H1)':>6} {'theory':>6}  s")
    rng = random.Random(seed)
    passed = True
    for scenario in scenarios(runs):
        started = time.perf_counter()
        results = [simulate(scenario.test, scenario.truth.probs, BATCH, rng) for _ in range(scenario.runs)]
        elapsed = time.perf_counter() - started
        mean = sum(n for _, n in results) / len(results)
        share = sum(outcome == "H1" for outcome, _ in results) / len(results)
        theory = expectation(scenario.test, scenario.truth, scenario.kind, batch=BATCH)
        judged = judge(mean, theory.samples)
        passed &= judged == "PASS"
        print(
            f"{scenario.name:<44} {scenario.runs:>5} {mean:>11.1f} {theory.samples:>9.1f} "
            f"{mean / theory.samples:>6.2f} {share:>6.2f} {theory.pass_probability:>6.2f}  {elapsed:.0f}  {judged}"
        )
    return passed


def real_pairs(tests: int, reference_pairs: int, jobs: int) -> bool:
    print(f"\n== Real games: repeated default tests (normalized [0,5], batch {BATCH}); load average {loadavg()}")
    print(f"   truth: a reference run of {reference_pairs} pairs (deals) on other deals, its empty cells regularised;")
    print(f"   {jobs} process(es) play the reference run and the tests side by side")
    print(f"{'pair':<40} {'tests':>5} {'mean pairs':>11} {'theory':>9} {'ratio':>6} {'H1':>4} {'games/s':>8}  s")
    passed = True
    with ProcessPoolExecutor(jobs) as pool:
        for game, new, base in [
            (games.FACE_TO_FACE, "house:expert", "house:greedy"),
            (games.THE_GAME, "house:expert", "house:greedy"),
        ]:
            started = time.perf_counter()
            reference = pool.submit(play_reference, game, new, base, reference_pairs)
            runs = [pool.submit(play_test, game, new, base, f"bench-sprt-{index}") for index in range(tests)]
            counts = reference.result()
            statuses = [run.result() for run in runs]
            elapsed = time.perf_counter() - started
            _, truth = empirical(counts.cells)  # empty cells regularised, as the tests read their own counts
            theory = expectation(SPRT(), truth, counts.kind, batch=BATCH)
            lengths = [status.counts.pairs for status in statuses]
            mean = sum(lengths) / tests
            judged = judge(mean, theory.samples)
            passed &= judged == "PASS"
            rate = (sum(status.counts.games for status in statuses) + counts.games) / elapsed
            h1 = sum(status.verdict == "H1" for status in statuses)
            print(
                f"{game + ' ' + new + ' vs ' + base:<40} {tests:>5} {mean:>11.1f} {theory.samples:>9.1f} "
                f"{mean / theory.samples:>6.2f} {h1:>4} {rate:>8.1f}  {elapsed:.0f}  {judged}"
            )
            print(f"   reference counts {counts.kind} {list(counts.cells)}; test lengths {sorted(lengths)}")
    return passed


def _contest(game: str, new: str, base: str, seed: str) -> Contest:
    return Contest(game, BotSpec(new, name="new"), BotSpec(base, name="base"), seed)


def play_reference(game: str, new: str, base: str, pairs: int) -> Counts:
    """The counts of `pairs` pairs (deals) on the reference seed, played to the end."""
    contest = _contest(game, new, base, "bench-sprt-reference")
    return contest.counts([list(play_games(spec)) for spec in contest.specs(0, pairs)])


def play_test(game: str, new: str, base: str, seed: str) -> Status:
    return run_test(_contest(game, new, base, seed), SPRT(), 10**6, BATCH)


def expert_beats_greedy(seed: str) -> bool:
    print(f"\n== python -m bots sprt house:expert house:greedy --game face-to-face (load average {loadavg()})")
    command = [sys.executable, "-m", "bots", "sprt", "house:expert", "house:greedy", "--game", "face-to-face"]
    started = time.perf_counter()
    done = subprocess.run([*command, "--seed", seed, "--json"], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1, 3):
        print(f"   the command failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        return False
    record = json.loads(done.stdout)
    judged = verdict(done.returncode == 0 and record["verdict"] == "H1")
    print(
        f"   seed {seed}: verdict {record['verdict']} (exit {done.returncode}) after {record['games']} games, "
        f"LLR {record['llr']:.2f}, Elo {record['elo']:+.0f} ± {record['elo_error']:.0f}, {elapsed:.1f} s  {judged}"
    )
    return judged == "PASS"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["simulated", "real", "cli"], help="run one part only")
    parser.add_argument("--runs", type=int, default=200, help="simulated tests per scenario (default 200)")
    parser.add_argument("--tests", type=int, default=6, help="real tests per house-bot pair (default 6)")
    parser.add_argument("--reference-pairs", type=int, default=400, help="pairs of the reference run (default 400)")
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the real games (default 2)")
    parser.add_argument("--seed", type=int, default=23, help="seed of the simulations and the CLI's test")
    args = parser.parse_args()
    print(f"bench.sprt: load average {loadavg()} at the start")
    results = []
    if args.only in (None, "simulated"):
        results.append(run_simulated(args.runs, args.seed))
    if args.only in (None, "real"):
        results.append(real_pairs(args.tests, args.reference_pairs, args.jobs))
    if args.only in (None, "cli"):
        results.append(expert_beats_greedy(str(args.seed)))
    print(f"\n{'all goals PASS' if all(results) else 'some goal MISSED'} (load average {loadavg()})")
    raise SystemExit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
