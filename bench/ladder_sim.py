"""Benchmark for issue 22: how well the ladder's pairings teach the rating fit, on a simulated league.

    python -m bench.ladder_sim                       # 50 bots, 2,000 matches, 3 seeds, both schedulers
    python -m bench.ladder_sim --seeds 1 --matches 500 --bots 20     # a quick look

No sandbox, no database: bots of known true strength play 10-game duplicate matches whose games are won with the
Bradley-Terry odds of their true Elo gap (5 deals, seats swapped; the deal's luck is not modelled, so every game is
an independent draw). The league around them is the real one in miniature: at most `--pending` matches (4, the
league's ARENA_LADDER_MAX_PENDING) wait or run at once and a member plays in one at a time; matches finish in random
order; after each one the real rating fit (`league.arena.ladder.bradley_terry.fit`, warm-started as the league's
refits are) rates every version, and the scheduler fills the free places, as the league schedules after each refit.

The schedulers, given exactly the same league:
- today's: the member with the fewest games first, against the closest rating (the `pair()` issue 22 replaced,
  kept here as `closest_rating` for the comparison);
- the new one: `league.arena.ladder.pairing.choose`, the function `league.arena.ladder.scheduling` calls, with its
  default `Rules` (the settings' defaults).

The league: three house bots at their measured gaps (greedy beats random in 1,000 of 1,000 games, expert beats
greedy in 85 %: docs/house-bots.md) and uploaded bots whose true Elo is normal around greedy + 150 with a standard
deviation of 250 Elo, from below random's neighbours to well above the expert, as on a public ladder. Every bot
starts unrated at once (a new league). After `--matches` matches it measures:
- Spearman's correlation of the fitted against the true Elo, over every bot;
- distinct opponents each bot met, and the share of a bot's matches its most frequent opponent took;
- then newcomers join one at a time, with true strengths at the league's deciles (10 % to 90 %): how many of its own
  matches each needs until its 95 % interval is within +-50 Elo (the league keeps playing meanwhile; given up at
  `--newcomer-cap` matches). One more newcomer above the strongest bot is shown apart: nothing on the ladder is
  near it, so every game it plays tells the fit little; it is not one of the goal's newcomers.
Goals (issue 22): Spearman >= 0.95 after 2,000 matches, every bot met >= 15 distinct opponents, no opponent took more
than 15 % of a bot's matches, every newcomer at +-50 Elo within 30 of its own matches. The clock covers the whole
simulation of one seed (both schedulers' runs), and the scheduler's own time per call is printed.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import spearmanr

from bench import harness
from league.arena.ladder import bradley_terry, pairing

GAMES_PER_MATCH = 10
GREEDY = 1400.0
HOUSE = {"house:random": GREEDY - 1100.0, "house:greedy": GREEDY, "house:expert": GREEDY + 301.0}
NEWCOMER_MARGIN = 50.0
GOALS = {"spearman": 0.95, "distinct": 15, "share": 0.15, "newcomer": 30}

Chooser = Callable[[Sequence[pairing.Member], dict, int, np.random.Generator, set], list[tuple[Hashable, Hashable]]]


def closest_rating(members: Sequence[pairing.Member], met: dict, room: int, rng: np.random.Generator, busy=()) -> list:
    """Today's scheduler (league/arena/ladder/scheduling.py before issue 22): fewest games first, closest rating."""
    pool = sorted((m for m in members if m.key not in busy), key=lambda m: (m.matches, m.key))
    pairs = []
    while room > 0 and len(pool) >= 2:
        first = pool.pop(0)
        second = min(pool, key=lambda m: (abs(m.elo - first.elo), m.matches, m.key))
        pool.remove(second)
        pairs.append((first.key, second.key))
        room -= 1
    return pairs


def new_scheduler(members: Sequence[pairing.Member], met: dict, room: int, rng: np.random.Generator, busy=()) -> list:
    return pairing.choose(members, met, room, rng, busy=busy)


SCHEDULERS = {"today": closest_rating, "new": new_scheduler}


def true_strengths(bots: int, rng: np.random.Generator) -> dict[str, float]:
    uploaded = rng.normal(GREEDY + 150.0, 250.0, bots - len(HOUSE))
    return {**HOUSE, **{f"bot{k:03d}": float(elo) for k, elo in enumerate(uploaded)}}


@dataclass
class League:
    truth: dict[str, float]
    choose: Chooser
    rng: np.random.Generator
    pending_limit: int
    wins: Counter = field(default_factory=Counter)  # (a, b) with a < b: a's wins
    games: Counter = field(default_factory=Counter)
    met: Counter = field(default_factory=Counter)  # matches per pair, pending ones included
    matches: Counter = field(default_factory=Counter)  # finished matches per bot
    pending: list = field(default_factory=list)
    fitted: dict = field(default_factory=dict)  # bot -> (elo, variance)
    scheduler_seconds: list = field(default_factory=list)

    def refit(self) -> None:
        pairs = sorted(self.games)
        players = sorted({bot for pair in pairs for bot in pair})
        index = {bot: k for k, bot in enumerate(players)}
        fit = bradley_terry.fit(
            players,
            [index[a] for a, _ in pairs],
            [index[b] for _, b in pairs],
            wins_a=[self.wins[p] for p in pairs],
            wins_b=[self.games[p] - self.wins[p] for p in pairs],
            start={bot: elo for bot, (elo, _) in self.fitted.items()},
        )
        self.fitted = {bot: (float(fit.elo[k]), float(fit.variance[k])) for k, bot in enumerate(players)}

    def member(self, bot: str) -> pairing.Member:
        elo, variance = self.fitted.get(bot, (1500.0, math.inf))
        return pairing.Member(bot, elo, variance, self.matches[bot], anchor=bot in HOUSE)

    def schedule(self) -> None:
        busy = {bot for pair in self.pending for bot in pair}
        everyone = [self.member(bot) for bot in sorted(self.truth)]
        started = time.perf_counter()
        pairs = self.choose(everyone, dict(self.met), self.pending_limit - len(self.pending), self.rng, busy)
        self.scheduler_seconds.append(time.perf_counter() - started)
        for pair in pairs:
            self.met[pairing.pair_key(*pair)] += 1
        self.pending.extend(pairs)

    def finish_one(self) -> tuple[str, str]:
        a, b = self.pending.pop(int(self.rng.integers(len(self.pending))))
        p = 1.0 / (1.0 + 10.0 ** ((self.truth[b] - self.truth[a]) / 400.0))
        a_won = int(self.rng.binomial(GAMES_PER_MATCH, p))
        key = pairing.pair_key(a, b)
        self.wins[key] += a_won if key[0] == a else GAMES_PER_MATCH - a_won
        self.games[key] += GAMES_PER_MATCH
        self.matches[a] += 1
        self.matches[b] += 1
        self.refit()
        return a, b

    def step(self) -> tuple[str, str]:
        self.schedule()
        return self.finish_one()

    def margin(self, bot: str) -> float:
        return bradley_terry.Z95 * math.sqrt(self.fitted.get(bot, (0.0, math.inf))[1])


@dataclass(frozen=True)
class Figures:
    spearman: float
    distinct_min: int
    distinct_median: float
    share_max: float
    share_median: float
    newcomers: list[int | None]  # matches to +-50 Elo at the deciles (None: not within the cap)
    above_all: int | None
    scheduler_ms: float


def opponents(league: League) -> dict[str, Counter]:
    met: dict[str, Counter] = defaultdict(Counter)
    for (a, b), n in league.met.items():
        met[a][b] += n
        met[b][a] += n
    return met


def place_newcomer(league: League, name: str, strength: float, cap: int) -> int | None:
    league.truth[name] = strength
    while league.matches[name] < cap:
        league.step()
        if league.matches[name] and league.margin(name) <= NEWCOMER_MARGIN:
            return league.matches[name]
    return None


def simulate(scheduler: str, bots: int, matches: int, seed: int, pending: int, newcomer_cap: int) -> Figures:
    truth = true_strengths(bots, np.random.default_rng(seed))
    league = League(dict(truth), SCHEDULERS[scheduler], np.random.default_rng([seed, 1]), pending)
    while sum(league.matches.values()) // 2 < matches:
        league.step()
    while league.pending:  # the matches still running finish; the figures cover every match played
        league.finish_one()
    bots_now = sorted(truth)
    fitted = [league.fitted.get(bot, (1500.0, 0.0))[0] for bot in bots_now]
    spearman = float(spearmanr(fitted, [truth[bot] for bot in bots_now]).statistic)
    met = opponents(league)
    distinct = [len(met[bot]) for bot in bots_now]
    share = [max(met[bot].values()) / league.matches[bot] for bot in bots_now if league.matches[bot]]
    timing = statistics.mean(league.scheduler_seconds) * 1000.0
    deciles = np.quantile(list(truth.values()), np.arange(0.1, 0.91, 0.1))
    newcomers = [place_newcomer(league, f"new{k}", float(e), newcomer_cap) for k, e in enumerate(deciles)]
    above_all = place_newcomer(league, "new-top", max(truth.values()) + 100.0, newcomer_cap)
    return Figures(
        spearman,
        min(distinct),
        statistics.median(distinct),
        max(share),
        statistics.median(share),
        newcomers,
        above_all,
        timing,
    )


def shown(values: Sequence[float], form: str) -> str:
    low, high = min(values), max(values)
    return format(low, form) if low == high else f"{low:{form}} to {high:{form}}"


def matches_text(count: int | None, cap: int) -> str:
    return f">{cap}" if count is None else str(count)


def report(results: dict[str, list[Figures]], matches: int, cap: int) -> None:
    print(f"\nAfter {matches:,} matches ({len(results['new'])} seed(s); ranges over seeds):")
    print(f"{'':52} {'today':>16} {'new':>16}  goal")
    rows = [
        ("Spearman, fitted vs true Elo", "spearman", ".3f", "min", f">= {GOALS['spearman']}"),
        ("distinct opponents, fewest of any bot", "distinct_min", "d", "min", f">= {GOALS['distinct']}"),
        ("distinct opponents, median bot", "distinct_median", ".0f", None, ""),
        ("share of matches to the top opponent, worst bot", "share_max", ".1%", "max", f"<= {GOALS['share']:.0%}"),
        ("share of matches to the top opponent, median bot", "share_median", ".1%", None, ""),
        ("scheduler time per call (ms)", "scheduler_ms", ".2f", None, ""),
    ]
    for label, key, form, worst, goal in rows:
        cells = [shown([getattr(f, key) for f in results[name]], form) for name in ("today", "new")]
        line = f"{label:52} {cells[0]:>16} {cells[1]:>16}  {goal}"
        if worst:
            values = [getattr(f, key) for f in results["new"]]
            value = min(values) if worst == "min" else max(values)
            limit = GOALS[key.split("_")[0]]
            ok = value >= limit if worst == "min" else value <= limit
            line += f"  {harness.verdict(ok)} (new)"
        print(line)
    print(
        f"\nNewcomers at the league's deciles: its own matches until its interval is within +-{NEWCOMER_MARGIN:.0f} Elo"
    )
    for name in ("today", "new"):
        for seed, figures in enumerate(results[name]):
            counts = ", ".join(matches_text(c, cap) for c in figures.newcomers)
            print(
                f"  {name:6} seed {seed}: {counts}   (above the strongest bot: {matches_text(figures.above_all, cap)})"
            )
    worst_new = [c for f in results["new"] for c in f.newcomers]
    slowest = max((c if c is not None else math.inf) for c in worst_new)
    print(
        f"  new scheduler, slowest decile newcomer: {matches_text(None if slowest == math.inf else int(slowest), cap)}"
        f" matches (goal <= {GOALS['newcomer']}): {harness.verdict(slowest <= GOALS['newcomer'])}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--pending", type=int, default=4, help="matches waiting or running at once")
    parser.add_argument("--newcomer-cap", type=int, default=100, help="give up placing a newcomer after this many")
    args = parser.parse_args()
    if args.bots < len(HOUSE) + 2:
        parser.error(f"--bots must be at least {len(HOUSE) + 2}")
    print(f"Simulated ladder: {args.bots} bots, {GAMES_PER_MATCH}-game duplicate matches, {args.pending} at once")
    print(f"load average before: {harness.loadavg()}")
    results: dict[str, list[Figures]] = {"today": [], "new": []}
    for seed in range(args.seeds):
        started = time.perf_counter()
        for name in results:
            results[name].append(simulate(name, args.bots, args.matches, seed, args.pending, args.newcomer_cap))
        print(
            f"seed {seed}: both schedulers simulated in {time.perf_counter() - started:.0f} s "
            f"(load average {harness.loadavg()})",
            flush=True,
        )
    report(results, args.matches, args.newcomer_cap)
    print(f"\nload average after: {harness.loadavg()}")


if __name__ == "__main__":
    main()
