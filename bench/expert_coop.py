"""The co-op expert (bots/house/expert_coop.py) over seeded games, straight against the engine, in-process.

    python -m bench.expert_coop                                  # 10000 games each: the-game 1-5 players, extreme solo
    python -m bench.expert_coop --games 500 --config the-game:2 --config extreme:3
    python -m bench.expert_coop --games 500 --set extra_play_bonus=0.3   # try another Tuning value

Game i is dealt from seed i (the same deals for every run). Every seat is served by its own fresh instance of
the module. Prints, per configuration, the win rate with a 95% Wilson interval, the mean and median cards left
(0 = all placed) and the time the bot took per turn (median, 99th percentile, max).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import statistics
import time

import games
from bench import harness
from bench.engine import play_game  # the same timed game loop
from bots.house import fresh_module
from bots.summary import wilson_interval

MODULE = "bots.house.expert_coop"
DEFAULT_CONFIGS = [("the-game", players) for players in range(1, 6)] + [("extreme", 1)]
TARGETS = {("the-game", 1): 0.20, ("the-game", 2): 0.30}


def parse_config(text: str) -> tuple[str, int]:
    game, sep, players = text.partition(":")
    if game not in ("the-game", "extreme") or not sep or not players.isdigit() or not 1 <= int(players) <= 5:
        raise argparse.ArgumentTypeError(f"{text!r}: write GAME:PLAYERS with GAME the-game or extreme, 1-5 players")
    return game, int(players)


def parse_settings(settings: list[str]) -> dict[str, object]:
    fields = {field.name for field in dataclasses.fields(fresh_module(MODULE).Tuning)}
    values = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        if not sep:
            raise SystemExit(f"--set {setting!r}: write NAME=VALUE, e.g. extra_play_bonus=0.3")
        if name not in fields:
            raise SystemExit(f"--set {name}: Tuning has no such field; fields are {', '.join(sorted(fields))}")
        try:
            values[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise SystemExit(f"--set {setting!r}: {text!r} is not a Python literal") from None
    return values


def new_bot(settings: dict[str, object]):
    bot = fresh_module(MODULE)
    bot.THE_GAME_TUNING = dataclasses.replace(bot.THE_GAME_TUNING, **settings)
    bot.EXTREME_TUNING = dataclasses.replace(bot.EXTREME_TUNING, **settings)
    return bot


def run_config(game: str, players: int, count: int, first_seed: int, settings: dict[str, object]) -> dict:
    bots = [new_bot(settings) for _ in range(players)]
    scores: list[int] = []
    timings: list[float] = []
    started = time.perf_counter()
    for seed in range(first_seed, first_seed + count):
        state = play_game(games.new_game(game, players=players, seed=seed), bots, seed, timings)
        scores.append(state.outcome.score)
    wins = scores.count(0)
    times_ms = sorted(1000 * t for t in timings)
    return {
        "wins": wins,
        "interval": wilson_interval(wins, count),
        "mean": statistics.fmean(scores),
        "median": statistics.median(scores),
        "turn_median": statistics.median(times_ms),
        "turn_p99": times_ms[min(len(times_ms) - 1, int(0.99 * len(times_ms)))],
        "turn_max": times_ms[-1],
        "turns": len(times_ms),
        "wall": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games per configuration (default 10000)")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument(
        "--config",
        action="append",
        type=parse_config,
        metavar="GAME:PLAYERS",
        help="a configuration to play (repeatable; default: the-game 1-5 players and extreme:1)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a field of the bot's Tuning for both games",
    )
    args = parser.parse_args()
    if args.games < 1:
        raise SystemExit("--games must be at least 1")
    settings = parse_settings(args.set)
    for game, players in args.config or DEFAULT_CONFIGS:
        r = run_config(game, players, args.games, args.first_seed, settings)
        low, high = r["interval"]
        print(
            f"{game} {players}p: win {100 * r['wins'] / args.games:.2f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%), "
            f"cards left mean {r['mean']:.2f} median {r['median']:g} over {args.games} games; "
            f"turn ms median {r['turn_median']:.2f} p99 {r['turn_p99']:.1f} max {r['turn_max']:.1f} "
            f"over {r['turns']} turns (turn ms: each play() call's wall time); wall {r['wall']:.0f} s",
            flush=True,
        )
        target = TARGETS.get((game, players))
        if target is not None:
            rate = r["wins"] / args.games
            print(f"  {harness.verdict(rate >= target)}  win >= {target:.0%}: {rate:.2%}", flush=True)


if __name__ == "__main__":
    main()
