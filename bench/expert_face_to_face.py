"""Face to Face expert vs another house bot over duplicate deals, straight against the engine.

    python -m bench.expert_face_to_face                    # 1000 deals = 2000 games against greedy
    python -m bench.expert_face_to_face --deals 200 --opponent random
    python -m bench.expert_face_to_face --set DEAD_COST=5  # try other weights of the expert's score

Each deal (seed) is played twice with the same start seat and the bots' seats swapped, so the luck of the
cards cancels out. Prints the expert's win rate with a 95% Wilson interval and its time per turn.
"""

from __future__ import annotations

import argparse
import statistics
import time
from types import ModuleType

import games
from bots.house import load_house_bot
from bots.summary import wilson_interval


def play_deal(
    seed: str, start_seat: int, expert_seat: int, expert: ModuleType, other: ModuleType, expert_times: list[float]
) -> bool:
    """Play one game of the deal; return whether the expert won."""
    bots = [expert, other] if expert_seat == 0 else [other, expert]
    state = games.new_game("face-to-face", seed=seed, start_seat=start_seat)
    for seat, bot in enumerate(bots):
        if hasattr(bot, "new_game"):
            bot.new_game({"game": "face-to-face", "players": 2, "seat": seat, "seed": seed, "options": {}})
    while state.outcome is None:
        seat = state.to_move
        observation = state.observation(seat)
        started = time.perf_counter()
        turn = bots[seat].play(observation)
        elapsed = time.perf_counter() - started
        if seat == expert_seat:
            expert_times.append(elapsed)
        state.push(turn, elapsed * 1000)
    return state.outcome.winner == expert_seat


def parse_weights(settings: list[str]) -> dict[str, float]:
    weights = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        if not sep:
            raise SystemExit(f"--set {setting!r}: write NAME=VALUE, e.g. DEAD_COST=5")
        try:
            weights[name] = float(value)
        except ValueError:
            raise SystemExit(f"--set {setting!r}: {value!r} is not a number") from None
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="deals to play, each twice (default 1000)")
    parser.add_argument("--first-deal", type=int, default=0, help="seed of the first deal (default 0)")
    parser.add_argument("--opponent", default="greedy", help="house bot to play against (default greedy)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one of the expert's score weights (a module constant)",
    )
    args = parser.parse_args()
    weights = parse_weights(args.set)

    expert, other = load_house_bot("expert"), load_house_bot(args.opponent)
    specialist = expert._specialist("face-to-face")
    for name, value in weights.items():
        if not hasattr(specialist, name):
            raise SystemExit(f"--set {name}: the expert has no weight of that name")
        setattr(specialist, name, value)

    expert_times: list[float] = []
    wins = 0
    started = time.perf_counter()
    for deal in range(args.first_deal, args.first_deal + args.deals):
        seed = f"ftf-bench:{deal}"
        for expert_seat in (0, 1):
            wins += play_deal(seed, deal % 2, expert_seat, expert, other, expert_times)
    elapsed = time.perf_counter() - started

    games_played = 2 * args.deals
    low, high = wilson_interval(wins, games_played)
    times_ms = [1000 * t for t in expert_times]
    print(
        f"expert vs {args.opponent}: {wins}/{games_played} duplicate games won = {100 * wins / games_played:.1f}% "
        f"(95% CI {100 * low:.1f}-{100 * high:.1f}%)"
    )
    print(
        f"expert turn time: median {statistics.median(times_ms):.2f} ms, "
        f"p99 {statistics.quantiles(times_ms, n=100)[98]:.2f} ms, max {max(times_ms):.2f} ms "
        f"over {len(times_ms)} turns (each of the expert's play() calls, wall time); wall {elapsed:.0f} s"
    )


if __name__ == "__main__":
    main()
