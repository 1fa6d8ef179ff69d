"""The house bots: legal turns in every game, reproducible randomness, greedy's tricks, the registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import games
from bots.house import HOUSE_BOTS, UnknownHouseBot, load_house_bot

HOUSE_DIR = Path(__file__).resolve().parents[2] / "bots" / "house"


def play_game(game: str, players: int, bots: list[ModuleType], seed: int) -> games.GameState:
    """Play one game to the end; an illegal turn fails the test with the engine's message."""
    state = games.new_game(game, players=players, seed=seed)
    for seat, bot in enumerate(bots):
        if hasattr(bot, "new_game"):
            bot.new_game({"game": game, "players": players, "seat": seat, "seed": seed, "options": {}})
    while state.outcome is None:
        seat = state.to_move
        observation = state.observation(seat)
        turn = bots[seat].play(observation)
        try:
            state.push(games.Turn.from_json(turn))
        except games.IllegalTurn as error:
            pytest.fail(f"{game} seed {seed} seat {seat}: {turn} rejected ({error.rule}): {error}")
    return state


# (game, player counts, seeds per count): a few hundred games per game for the cheap bots
CHEAP_RUNS = [("face-to-face", [2], 200), ("the-game", [1, 2, 3, 4, 5], 40), ("extreme", [1, 2, 3, 4, 5], 60)]


@pytest.mark.parametrize("name", ["random", "greedy"])
@pytest.mark.parametrize(("game", "counts", "seeds"), CHEAP_RUNS)
def test_cheap_bots_play_only_legal_turns(name: str, game: str, counts: list[int], seeds: int) -> None:
    for players in counts:
        bots = [load_house_bot(name) for _ in range(players)]
        for seed in range(seeds):
            play_game(game, players, bots, seed)


def test_expert_plays_only_legal_face_to_face_turns() -> None:
    for seed in range(30):
        bots = [load_house_bot("expert"), load_house_bot("greedy")][:: 1 if seed % 2 else -1]
        play_game("face-to-face", 2, bots, seed)


@pytest.mark.parametrize("game", ["the-game", "extreme"])
def test_expert_plays_only_legal_coop_turns(game: str) -> None:
    for players in (1, 3, 5):
        bots = [load_house_bot("expert") for _ in range(players)]
        for seed in range(4):
            play_game(game, players, bots, seed)


def test_greedy_beats_random_at_face_to_face() -> None:
    wins = 0
    for seed in range(100):
        greedy_seat = seed % 2
        bots = [load_house_bot("greedy"), load_house_bot("random")][:: 1 if greedy_seat == 0 else -1]
        wins += play_game("face-to-face", 2, bots, seed).outcome.winner == greedy_seat
    assert wins >= 70


def turns_of(game: str, players: int, seed: int, bot_seed: object) -> list:
    """Every turn of a game played by random bots seeded with `bot_seed`."""
    state = games.new_game(game, players=players, seed=seed)
    bots = [load_house_bot("random") for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.new_game({"game": game, "players": players, "seat": seat, "seed": bot_seed, "options": {}})
    turns = []
    while state.outcome is None:
        turn = bots[state.to_move].play(state.observation(state.to_move))
        turns.append(turn)
        state.push(turn)
    return turns


@pytest.mark.parametrize(("game", "players"), [("face-to-face", 2), ("the-game", 3), ("extreme", 2)])
def test_random_is_reproducible_for_a_seed(game: str, players: int) -> None:
    assert turns_of(game, players, 5, "match-1:game-5") == turns_of(game, players, 5, "match-1:game-5")
    runs = {str(turns_of(game, players, 5, bot_seed)) for bot_seed in range(6)}
    assert len(runs) > 1, "the bot seed should change the turns"


def test_random_without_new_game_seeds_from_the_observation() -> None:
    observation = games.new_game("the-game", players=2, seed=11).observation(0)
    first = [load_house_bot("random").play(observation) for _ in range(3)]
    assert first[0] == first[1] == first[2]
    other_hands = {str(load_house_bot("random").play(games.new_game("the-game", 2, seed).observation(0)))
                   for seed in range(12, 20)}
    assert len(other_hands) > 1


def face_to_face_observation(hand: list[int], tops: dict[str, int]) -> dict:
    piles = {
        pile: {"direction": pile[3:], "owner": int(pile[1]), "top": top, "history": [top]}
        for pile, top in tops.items()
    }
    return {
        "game": "face-to-face", "players": 2, "seat": 0, "to_move": 0, "turn": 7, "hand": hand,
        "hand_sizes": [len(hand), 6], "hand_size": 6, "draw_pile_sizes": [30, 30], "min_plays": 2,
        "piles": piles, "signals": [], "commands": None,
    }


def test_greedy_plays_tricks_first() -> None:
    observation = face_to_face_observation(
        [17, 28, 39, 50, 55, 58], {"p0.up": 27, "p0.down": 40, "p1.up": 30, "p1.down": 20}
    )
    plays = load_house_bot("greedy").play(observation)["plays"]
    assert plays == [[17, "p0.up"], [50, "p0.down"]]


def test_greedy_takes_a_trick_its_own_play_opens() -> None:
    # 34 on 33 makes 24 a trick, which beats 40 on 41
    observation = face_to_face_observation(
        [24, 34, 40, 55, 57, 59], {"p0.up": 33, "p0.down": 41, "p1.up": 30, "p1.down": 20}
    )
    plays = load_house_bot("greedy").play(observation)["plays"]
    assert plays == [[34, "p0.up"], [24, "p0.up"]]


def test_greedy_takes_a_trick_after_the_minimum() -> None:
    # 34 and 40 meet the minimum; 40 on the descending pile makes 50 a trick, which greedy still takes
    observation = face_to_face_observation(
        [34, 40, 50, 55, 57, 59], {"p0.up": 33, "p0.down": 41, "p1.up": 2, "p1.down": 59}
    )
    plays = load_house_bot("greedy").play(observation)["plays"]
    assert plays == [[34, "p0.up"], [40, "p0.down"], [50, "p0.down"]]


def test_registry_gives_a_fresh_module_per_call() -> None:
    first, second = load_house_bot("random"), load_house_bot("random")
    assert first is not second
    first.new_game({"seed": 1, "seat": 0})
    assert second._rng is None
    assert set(HOUSE_BOTS) == {"random", "greedy", "expert"}


def test_registry_names_the_known_bots_for_an_unknown_one() -> None:
    with pytest.raises(UnknownHouseBot, match="'genius'.*expert, greedy, random"):
        load_house_bot("genius")


@pytest.mark.parametrize("filename", ["random_bot.py", "greedy.py"])
def test_cheap_bots_are_standalone_standard_library_files(filename: str, tmp_path: Path) -> None:
    """They run as plain uploaded files in the sandbox: importable with nothing of the project on the path."""
    bot_file = tmp_path / "bot.py"
    bot_file.write_text((HOUSE_DIR / filename).read_text())
    script = (
        "import json, bot; "
        "print(json.dumps(bot.play({'game': 'the-game', 'players': 1, 'seat': 0, 'to_move': 0, 'turn': 0, "
        "'hand': [5, 50, 95], 'hand_sizes': [3], 'hand_size': 8, 'draw_pile_sizes': [0], 'min_plays': 1, "
        "'piles': {'up1': {'direction': 'up', 'owner': None, 'top': 60, 'history': [1, 60]}, "
        "'down1': {'direction': 'down', 'owner': None, 'top': 40, 'history': [100, 40]}}, "
        "'signals': [{}], 'commands': None})))"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, '.'); {script}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert '"plays": [[' in result.stdout
