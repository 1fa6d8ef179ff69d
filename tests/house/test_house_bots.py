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
    other_hands = {
        str(load_house_bot("random").play(games.new_game("the-game", 2, seed).observation(0))) for seed in range(12, 20)
    }
    assert len(other_hands) > 1


def face_to_face_observation(hand: list[int], tops: dict[str, int]) -> dict:
    piles = {
        pile: {"direction": pile[3:], "owner": int(pile[1]), "top": top, "history": [top]} for pile, top in tops.items()
    }
    return {
        "game": "face-to-face",
        "players": 2,
        "seat": 0,
        "to_move": 0,
        "turn": 7,
        "hand": hand,
        "hand_sizes": [len(hand), 6],
        "hand_size": 6,
        "draw_pile_sizes": [30, 30],
        "min_plays": 2,
        "piles": piles,
        "signals": [],
        "commands": None,
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
    with pytest.raises(UnknownHouseBot, match="'genius'.*house:expert, house:greedy, house:random"):
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
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert '"plays": [[' in result.stdout


# --- the Face to Face expert's planning -------------------------------------------------------------------


def expert_face_to_face() -> ModuleType:
    return load_house_bot("expert")._specialist("face-to-face")


def position(hand: list[int], histories: dict[str, list[int]], draw: tuple[int, int], their_hand: int = 6) -> dict:
    """A Face to Face observation for seat 0 built from full pile histories."""
    observation = face_to_face_observation(hand, {pile: history[-1] for pile, history in histories.items()})
    for pile, history in histories.items():
        observation["piles"][pile]["history"] = history
    observation["draw_pile_sizes"] = list(draw)
    observation["hand_sizes"] = [len(hand), their_hand]
    observation["min_plays"] = min(2, len(hand))
    return observation


def descending(cards: set[int]) -> list[int]:
    return [60, *sorted(cards, reverse=True)]


def ascending(cards: set[int]) -> list[int]:
    return [1, *sorted(cards)]


def lay(plays: list[list], tops: dict[str, int]) -> dict[str, int]:
    """Check the plays against the pile rules from `tops` (seat 0 moving); return the tops after them."""
    tops = dict(tops)
    on_theirs = 0
    for card, pile in plays:
        top = tops[pile]
        if pile.startswith("p0."):
            assert card > top or card == top - 10 if pile.endswith("up") else card < top or card == top + 10
        else:
            on_theirs += 1
            assert card < top if pile.endswith("up") else card > top
        tops[pile] = card
    assert on_theirs <= 1 and len(plays) >= 2
    return tops


def test_expert_wins_outright_with_a_trick_chain() -> None:
    # Draw pile empty, hand 7, 17, 30, our ascending pile at 27: 17 and 7 go on by the trick one after the
    # other (RULES E10), then 30; every other order strands a card. Everything else of ours is on our piles,
    # the descending one down to 2.
    hand = [7, 17, 30]
    up = set(range(8, 28)) - {17}
    histories = {
        "p0.up": ascending(up),
        "p0.down": descending(set(range(2, 60)) - up - set(hand)),
        "p1.up": [1, 2],
        "p1.down": [60, 59],
    }
    observation = position(hand, histories, draw=(0, 50))
    bot = expert_face_to_face()
    assert bot.View(observation).unseen == []
    plays = bot.play(observation)["plays"]
    assert plays == [[17, "p0.up"], [7, "p0.up"], [30, "p0.up"]]


def test_expert_leaves_the_opponent_stuck_when_their_hand_is_known() -> None:
    # The opponent holds their last two cards, 40 and 45 (draw pile empty). 45 fits their ascending pile (44),
    # 40 fits none of theirs, so they can only move by putting 40 on ours: below our ascending top or above our
    # descending top. Our piles show 35 / 48. Raising our ascending pile past 40 lets them out, and so does
    # any card of ours on their descending pile (31), which would make 40 fit there, though it would refill
    # our hand; 47 then 46 on our descending pile does not.
    hand = [46, 47, 55, 58]
    draw = {36, 37, 38, 39, 40, 41, 42, 43, 44, 45}
    ours_up = set(range(2, 36))
    ours_down = set(range(2, 60)) - ours_up - set(hand) - draw
    theirs_up = set(range(2, 31)) | {44}
    theirs_down = set(range(2, 60)) - theirs_up - {40, 45}
    histories = {
        "p0.up": ascending(ours_up),
        "p0.down": descending(ours_down),
        "p1.up": ascending(theirs_up),
        "p1.down": descending(theirs_down),
    }
    observation = position(hand, histories, draw=(len(draw), 0), their_hand=2)
    bot = expert_face_to_face()
    view = bot.View(observation)
    assert view.unseen == sorted(draw) and view.their_hand == [40, 45]
    plays = bot.play(observation)["plays"]
    tops = lay(plays, {pile: history[-1] for pile, history in histories.items()})
    stuck, _ = bot.turn_options([40, 45], tops["p1.up"], tops["p1.down"], tops["p0.up"], tops["p0.down"])
    assert stuck, f"{plays} lets the opponent move"


def test_expert_reads_who_played_what_from_the_pile_histories() -> None:
    # Ours: 5, 12 (our ascending pile), 58, 48 (our descending), 55 (put on their descending pile, 50 -> 55).
    # Theirs: 9 (put on our ascending pile, 12 -> 9), 20 and 50. Their 20 -> 10 is exactly 10 back: their trick
    # or our card; with 5 cards played by us it can only be theirs, with 6 it must be ours.
    histories = [[1, 5, 12, 9], [60, 58, 48], [1, 20, 10], [60, 50, 55]]
    bot = expert_face_to_face()
    mine, theirs = bot.played_cards(histories, hand={30}, played_count=5)
    assert (mine, theirs) == ({5, 12, 58, 48, 55}, {9, 20, 10, 50})
    mine, theirs = bot.played_cards(histories, hand={30}, played_count=6)
    assert (mine, theirs) == ({5, 12, 58, 48, 55, 10}, {9, 20, 50})
    mine, theirs = bot.played_cards(histories, hand={10}, played_count=6)
    assert 10 in theirs  # we hold our 10, so the 10 on the pile is theirs


def test_expert_remembers_its_own_plays_and_forgets_them_in_a_new_game() -> None:
    bot = load_house_bot("expert")
    state = games.new_game("face-to-face", seed=3, start_seat=0)
    bot.new_game({"game": "face-to-face", "players": 2, "seat": 0, "seed": 3, "options": {}})
    first = bot.play(state.observation(0))
    specialist = bot._specialist("face-to-face")
    assert specialist._ours_played == {card for card, _ in first["plays"]}
    second = bot.play(games.new_game("face-to-face", seed=4, start_seat=0).observation(0))  # turn 0: a new game
    assert specialist._ours_played == {card for card, _ in second["plays"]}
