"""Issue 24's figures: how fast the analysis is, how precise its values, and whether its marks are right.

    python -m bench.analysis                    # everything at the issue's sizes (several minutes)
    python -m bench.analysis --only speed       # the two timing goals and the standard errors
    python -m bench.analysis --planted 50 --sound 4
    python -m bench.analysis --only planted --planted-seed other   # other deals and other planted turns

Clocks: each analysis is timed around `analyse_log` alone (the log read and checked, every turn analysed), in this
process pinned to one core; the wall time is judged, the CPU time (this process's) is printed beside it, since on a
shared machine the wall clock also counts other processes' turns on the core.

- speed: Face to Face games between the greedy and the expert house bots of 40 turns (the first deals that last
  exactly 40), and solo The Game games of the greedy bot (its games are longer than the expert's, and its turns differ
  from the expert's more often, so both candidates are rolled out); every evaluated value's standard error is checked
  (before, after, best: at most 0.03);
- planted: games of the greedy bot in which one seat makes, at a random turn, the most wasteful legal turn instead (the
  minimum number of plays on its own piles that moves them furthest: a card far up an ascending pile and the like);
  only that turn is analysed, and it must be marked a mistake or a blunder. Face to Face greedy vs greedy and solo The
  Game. The turn is drawn uniformly from the whole game (1 to the length of the same deal's game without the plant),
  as the issue says, and judged so; the share among plants in the first 20 turns is printed beside it (a greedy Face
  to Face game lasts about 30: later one side's game is often decided, where no turn can lose the 10 points of win
  probability of a mistake and only the cards a wasteful turn leaves the loser holding can mark it);
- sound: expert-vs-expert games analysed whole: at most 5% of their turns may be marked mistake or blunder; and the same
  for games of another strong bot (the expert with other weights, about as strong, whose turns often differ from the
  expert's): sound play that is not the expert's own must be left alone too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import time
from collections.abc import Sequence

import games
from bench import harness
from bench.engine import pin_to_one_core
from bots.analysis.analyse import analyse_log
from bots.analysis.rollouts import Precision
from bots.house import fresh_module, load_house_bot
from bots.match import BotSpec, MatchSpec, run_match
from games import FACE_TO_FACE, GameState, Play, Turn

FACE_TO_FACE_SECONDS = 10.0
SOLO_SECONDS = 20.0
STDERR_GOAL = 0.03
PLANTED_GOAL = 0.90
SOUND_GOAL = 0.05
TURNS = 40
# A greedy Face to Face game lasts about 30 turns; later the loser's game is often already lost, and no turn can drop a
# win probability near 0 by the 10 points of a mistake (only the cards it throws away can mark it): the share of
# plants within the first PLANTED_WITHIN turns is printed beside the judged one.
PLANTED_WITHIN = 20


def timed_analysis(log: dict, precision: Precision) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds, analysis) of one whole-game analysis."""
    wall, cpu = time.perf_counter(), time.process_time()
    analysis = analyse_log(log, "bench", precision)
    return time.perf_counter() - wall, time.process_time() - cpu, analysis


def logs_of(game: str, bots: list[str], count: int, seed: str, players: int | None = None) -> list[dict]:
    spec = MatchSpec(game, [BotSpec(bot) for bot in bots], games=count, seed=seed, players=players)
    return [result.log for result in run_match(spec).games]


def forty_turn_games(count: int) -> list[dict]:
    """The first Face to Face greedy-vs-expert games of exactly TURNS turns."""
    found: list[dict] = []
    batch = 0
    while len(found) < count:
        found += [log for log in logs_of(FACE_TO_FACE, ["house:greedy", "house:expert"], 20, f"forty:{batch}")
                  if len(log["turns"]) == TURNS]  # fmt: skip
        batch += 1
    return found[:count]


def speed(count: int, precision: Precision) -> bool:
    print(f"speed: analyse_log on one core (load average {harness.loadavg()})")
    ok = True
    cases = [
        ("face-to-face, greedy vs expert, 40 turns", forty_turn_games(count), FACE_TO_FACE_SECONDS),
        ("the-game solo, greedy", logs_of("the-game", ["house:greedy"], count, "solo", players=1), SOLO_SECONDS),
    ]
    for name, logs, goal in cases:
        walls, cpus, worst_stderr = [], [], 0.0
        for log in logs:
            wall, cpu, analysis = timed_analysis(log, precision)
            walls.append(wall)
            cpus.append(cpu)
            worst_stderr = max([worst_stderr, *(max(t.values_stderr.values()) for t in analysis.turns)])
        timely = max(walls) <= goal
        print(
            f"  {name}: {len(logs)} games, wall {min(walls):.1f}-{max(walls):.1f} s (median "
            f"{statistics.median(walls):.1f}), CPU {min(cpus):.1f}-{max(cpus):.1f} s; goal <= {goal:.0f} s: "
            f"{harness.verdict(timely)}"
        )
        precise = worst_stderr <= STDERR_GOAL
        print(
            f"    largest standard error of any value: {worst_stderr:.4f}; goal <= {STDERR_GOAL}: "
            f"{harness.verdict(precise)}"
        )
        ok = ok and timely and precise
    return ok


# -- planted mistakes --------------------------------------------------------------------------------------------


def movement(state: GameState, plays: Sequence[Play]) -> int:
    """How far the plays push their piles (a backwards trick counts -10)."""
    tops = dict(state.tops)
    total = 0
    for card, pile in plays:
        up = pile.endswith("up") or pile.startswith("up")
        total += card - tops[pile] if up else tops[pile] - card
        tops[pile] = card
    return total


def wasteful_turn(state: GameState) -> Turn | None:
    """The legal turn of the fewest plays, on the mover's own piles, that pushes them furthest."""
    seat = state.to_move
    best: tuple[int, list[Play]] | None = None

    def walk(prefix: list[Play]) -> None:
        nonlocal best
        if prefix and state.can_end_turn(prefix):
            score = movement(state, prefix)
            if best is None or score > best[0]:
                best = (score, list(prefix))
            return
        for play in state.legal_plays(prefix):
            if state.game_id == FACE_TO_FACE and not play.pile.startswith(f"p{seat}."):
                continue
            walk([*prefix, play])

    walk([])
    return None if best is None else Turn(tuple(best[1]))


def greedy_length(game: str, players: int, seed: str) -> int:
    """How many turns the greedy bot's game of this deal lasts without a plant."""
    bot = load_house_bot("greedy")
    state = games.new_game(game, players, seed, start_seat=0 if game == FACE_TO_FACE else None)
    while state.outcome is None:
        state.push(bot.play(state.observation(state.to_move)))
    return state.turn_number


def planted_log(game: str, players: int, seed: str, rng: random.Random) -> tuple[dict, int] | None:
    """A greedy game where one turn, drawn uniformly from the whole game, is the most wasteful one; (log, that turn)."""
    return log_planted_at(game, players, seed, rng.randrange(1, greedy_length(game, players, seed) + 1))


def log_planted_at(game: str, players: int, seed: str, planted_at: int) -> tuple[dict, int] | None:
    """The greedy game of this deal with its turn `planted_at` the most wasteful one; (log, that turn), or None if
    the game ends before it or the mover has no such turn there."""
    bot = load_house_bot("greedy")
    state = games.new_game(game, players, seed, start_seat=0 if game == FACE_TO_FACE else None)
    planted = None
    while state.outcome is None:
        if state.turn_number + 1 == planted_at:
            turn = wasteful_turn(state)
            if turn is not None:
                state.push(turn)
                planted = planted_at
                continue
        state.push(bot.play(state.observation(state.to_move)))
    if planted is None:
        return None
    return json.loads(state.log.dumps()), planted


def planted(count: int, precision: Precision, seed: str = "planted") -> bool:
    print(
        f"planted mistakes: one wasteful turn per greedy game, that turn analysed (seed {seed}, load "
        f"{harness.loadavg()})"
    )
    ok = True
    for game, players in ((FACE_TO_FACE, 2), ("the-game", 1)):
        rng = random.Random(f"{seed}:{game}")
        found = total = early_found = early = 0
        marks: dict[str | None, int] = {}
        started = time.perf_counter()
        index = 0
        while total < count:
            made = planted_log(game, players, f"{seed}:{game}:{index}", rng)
            index += 1
            if made is None:
                continue
            log, turn = made
            mark = analyse_log(log, "bench", precision, turns={turn}).turns[0].mark
            marks[mark] = marks.get(mark, 0) + 1
            caught = mark in ("mistake", "blunder")
            found += caught
            total += 1
            if turn <= PLANTED_WITHIN:
                early += 1
                early_found += caught
        share = found / total
        counts = ", ".join(f"{name or 'none'} {number}" for name, number in sorted(marks.items(), key=str))
        print(
            f"  {game}: {found}/{total} marked mistake or blunder ({100 * share:.1f}%; {counts}) in "
            f"{time.perf_counter() - started:.0f} s; goal >= {100 * PLANTED_GOAL:.0f}%: "
            f"{harness.verdict(share >= PLANTED_GOAL)}"
        )
        print(f"    of those planted in the first {PLANTED_WITHIN} turns: {early_found}/{early}")
        ok = ok and share >= PLANTED_GOAL
    return ok


class OtherExpert:
    """A strong player that is not the house expert: the expert with other weights (it wins about as often), so that
    its turns often differ from the expert's without being worse. Face to Face: other score weights; co-op: another
    tuning."""

    def __init__(self, game: str) -> None:
        if game == FACE_TO_FACE:
            self.module = fresh_module("bots.house.expert_face_to_face")
            for name, value in (("DEAD_COST", 5.5), ("ONE_PILE_COST", 1.4), ("PROGRESS", -3.0), ("HELP_WEIGHT", 0.5)):
                setattr(self.module, name, value)
            self.play = self.module.play
            self.new_game = self.module.new_game
        else:
            module = fresh_module("bots.house.expert_coop")
            tuning = dataclasses.replace(
                module.THE_GAME_TUNING, extra_play_bonus=0.35, reach_weight=0.2, time_limit=math.inf
            )
            self.play = lambda observation: module.play(observation, tuning)
            self.new_game = lambda info: None


def other_expert_log(game: str, players: int, seed: str, other_seat: int) -> dict:
    """A game of the house expert with OtherExpert in `other_seat` (co-op: in every seat)."""
    state = games.new_game(game, players, seed, start_seat=0 if game == FACE_TO_FACE else None)
    if game == FACE_TO_FACE:
        bots = [load_house_bot("expert"), load_house_bot("expert")]
        bots[other_seat] = OtherExpert(game)
    else:
        bots = [OtherExpert(game) for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.new_game({"game": game, "players": state.players, "seat": seat, "seed": seed, "options": {}})
    while state.outcome is None:
        state.push(bots[state.to_move].play(state.observation(state.to_move)))
    return json.loads(state.log.dumps())


def share_marked(logs: list[dict], precision: Precision, seats: Sequence[int | None]) -> tuple[int, int]:
    """(turns marked mistake or blunder, turns analysed) over the logs, counting the given seat of each (None: all)."""
    marked = turns = 0
    for log, seat in zip(logs, seats, strict=True):
        analysed = [turn for turn in analyse_log(log, "bench", precision).turns if seat is None or turn.seat == seat]
        turns += len(analysed)
        marked += sum(1 for turn in analysed if turn.mark in ("mistake", "blunder"))
    return marked, turns


def sound(count: int, precision: Precision) -> bool:
    print(f"sound games: every turn analysed (load average {harness.loadavg()})")
    cases = []
    for game, players in ((FACE_TO_FACE, None), ("the-game", 1), ("the-game", 3)):
        bots = ["house:expert"] * (2 if game == FACE_TO_FACE else players)
        logs = logs_of(game, bots, count, f"sound:{game}:{players}", players=players)
        name = "expert vs expert" if players is None else "the expert alone" if players == 1 else f"{players} experts"
        cases.append((f"{game}, {name}", logs, [None] * len(logs)))
    logs = [other_expert_log(FACE_TO_FACE, 2, f"other:{index}", index % 2) for index in range(count)]
    cases.append((f"{FACE_TO_FACE}, another strong bot (its turns) vs expert", logs, [i % 2 for i in range(count)]))
    logs = [other_expert_log("the-game", 1, f"other:{index}", 0) for index in range(count)]
    cases.append(("the-game solo, another strong bot", logs, [None] * count))
    ok = True
    for name, logs, seats in cases:
        marked, turns = share_marked(logs, precision, seats)
        share = marked / turns
        print(
            f"  {name}: {marked}/{turns} turns marked mistake or blunder ({100 * share:.1f}%) over {len(logs)} games; "
            f"goal <= {100 * SOUND_GOAL:.0f}%: {harness.verdict(share <= SOUND_GOAL)}"
        )
        ok = ok and share <= SOUND_GOAL
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("speed", "planted", "sound"))
    parser.add_argument("--speed-games", type=int, default=3, help="games timed per case (default 3)")
    parser.add_argument("--planted", type=int, default=200, help="planted games per game (default 200)")
    parser.add_argument(
        "--planted-seed", default="planted", help="seed of the planted games' deals and turns (default planted)"
    )
    parser.add_argument("--sound", type=int, default=10, help="expert-vs-expert games per case (default 10)")
    parser.add_argument("--rollouts", type=int, default=Precision.max_samples)
    parser.add_argument("--horizon", type=int, default=Precision.horizon)
    args = parser.parse_args(argv)
    core = pin_to_one_core()
    print(f"python -m bench.analysis on core {core}, load average {harness.loadavg()}")
    precision = Precision(max_samples=args.rollouts, horizon=args.horizon)
    results = []
    if args.only in (None, "speed"):
        results.append(speed(args.speed_games, precision))
    if args.only in (None, "planted"):
        results.append(planted(args.planted, precision, args.planted_seed))
    if args.only in (None, "sound"):
        results.append(sound(args.sound, precision))
    print(f"all goals: {harness.verdict(all(results))} (load average {harness.loadavg()})")
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
