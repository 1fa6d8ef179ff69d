"""bench/placement.py's own parts, without a league: the bots of mixed strength it uploads play legal games and sit
between random and greedy, and the judge reads the right moments off the samples."""

from __future__ import annotations

from bench import placement
from bench.placement import Placement, Sample
from bots.match import BotSpec, MatchSpec, run_match
from games import FORFEITS


def test_a_mix_plays_legal_games_between_random_and_greedy(tmp_path):
    path = tmp_path / "mix50.py"
    path.write_bytes(placement.source_of("mix50"))
    wins = {}
    for opponent in ("house:random", "house:greedy"):
        spec = MatchSpec(
            game="face-to-face",
            bots=[BotSpec(str(path), "mix", "1"), BotSpec(opponent, "opponent", "1")],
            games=20,
            seed="placement-mix",
            duplicate=True,
            sandbox=False,
        )
        games = run_match(spec).games
        assert not any(game.outcome.termination in FORFEITS for game in games), [g.outcome for g in games]
        winners = [game.seat_bots[game.outcome.winner] for game in games if game.outcome.winner is not None]
        wins[opponent] = winners.count(0) - winners.count(1)  # the mix is bot 0 whatever its seat
    assert wins["house:random"] > 0 > wins["house:greedy"], wins


def test_every_kind_of_the_default_mix_is_a_bot():
    for kind in placement.MIX.split(","):
        compile(placement.source_of(kind), f"{kind}.py", "exec")


def sample(seconds: float, elo: float, half: float, opponents: int) -> Sample:
    return Sample(seconds, elo, half, games=10 * opponents, opponents=opponents, matches_done=opponents)


def test_the_goal_needs_both_the_interval_and_the_opponents_and_near_final_is_for_good():
    found = Placement(
        "greedy",
        [
            sample(10, 1700, 150, 3),
            sample(20, 1820, 59, 7),  # narrow enough, too few opponents
            sample(30, 1880, 58, 8),  # the goal
            sample(40, 1960, 55, 9),  # strays past +-60 of the final 1890
            sample(50, 1900, 50, 10),  # near the final for good from here
            sample(60, 1890, 45, 11),
        ],
    )
    placement.judge(found)
    assert (found.goal_seconds, found.final_elo, found.near_final_seconds) == (30, 1890, 50)
    never = Placement("greedy", [sample(10, 1500, 200, 2), sample(20, 1600, 90, 9)])
    placement.judge(never)
    assert never.goal_seconds is None and never.near_final_seconds == 20
