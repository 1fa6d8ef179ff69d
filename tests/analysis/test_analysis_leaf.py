"""The leaf models: one for every game and player count, fitted to today's features, exact at the end of a game, and
refittable with the training module."""

import json

import pytest

import games
from bots.analysis import leaf, training
from bots.house import load_house_bot


def test_every_game_and_player_count_has_a_model_over_todays_features():
    models = json.loads(leaf.MODELS_FILE.read_text())["models"]
    assert models[leaf.FACE_TO_FACE]["features"] == list(leaf.FACE_TO_FACE_FEATURES)
    face_to_face = leaf.model_for(leaf.FACE_TO_FACE, 2)
    assert len(face_to_face.win) == len(face_to_face.cards) == len(leaf.FACE_TO_FACE_FEATURES)
    for game in ("the-game", "extreme"):
        for players in range(1, 6):
            assert models[f"{game}/{players}"]["features"] == list(leaf.COOP_FEATURES)
            model = leaf.model_for(game, players)
            assert model.features == leaf.COOP_FEATURES
            assert len(model.win) == len(model.cards) == len(leaf.COOP_FEATURES)


def finished(game, players):
    state = games.new_game(game, players, "leaf", start_seat=0 if game == "face-to-face" else None)
    bot = load_house_bot("greedy")
    while state.outcome is None:
        state.push(bot.play(state.observation(state.to_move)))
    return state


def test_a_finished_game_is_worth_its_result():
    state = finished("face-to-face", None)
    winner = state.outcome.winner
    loser = 1 - winner
    assert leaf.leaf_value(state, winner) == leaf.Leaf(1.0, 0.0)  # a win leaves no card to count, stuck or not
    held = len(state.hands[loser]) + len(state.draw_piles_reversed[loser])
    assert held > 0 and leaf.leaf_value(state, loser) == leaf.Leaf(0.0, float(held))
    solo = finished("the-game", 1)
    assert leaf.leaf_value(solo, 0) == leaf.Leaf(float(solo.outcome.score == 0), float(solo.outcome.score))


def test_face_to_face_expected_cards_left_weigh_the_cards_held_by_the_chance_of_losing():
    state = games.new_game("face-to-face", seed="leaf-cards", start_seat=0)
    bot = load_house_bot("greedy")
    while state.outcome is None:
        for seat in (0, 1):
            value = leaf.leaf_value(state, seat)
            held = len(state.hands[seat]) + len(state.draw_piles_reversed[seat])
            assert 0.0 <= value.cards <= (1.0 - value.win) * held + 1e-9
        state.push(bot.play(state.observation(state.to_move)))


def test_face_to_face_values_of_the_two_seats_add_up_to_one():
    state = games.new_game("face-to-face", seed="leaf", start_seat=0)
    bot = load_house_bot("greedy")
    while state.outcome is None:
        mine, theirs = leaf.leaf_value(state, 0).win, leaf.leaf_value(state, 1).win
        assert 0.0 < mine < 1.0 and mine + theirs == pytest.approx(1.0, abs=0.01)
        state.push(bot.play(state.observation(state.to_move)))


@pytest.mark.parametrize("game,players", [("face-to-face", 2), ("extreme", 2)])
def test_training_generates_labelled_games_and_fits_them(game, players, tmp_path):
    path = tmp_path / "games.jsonl"
    assert (
        training.main(["generate", "--game", game, "--players", str(players), "--games", "6", "--out", str(path)]) == 0
    )
    generated = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(generated) == 6 and all(games.replay(entry["log"]) for entry in generated)
    rows = [row for entry in generated for row in training.labelled_rows(entry)]
    assert rows and all(len(features) == len(leaf.expected_features(game)) for features, _, _ in rows)
    out = tmp_path / "models.json"
    assert training.main(["fit", str(path), "--out", str(out)]) == 0
    fitted = json.loads(out.read_text())["models"][leaf.model_key(game, players)]
    assert len(fitted["win"]) == len(fitted["cards"]) == len(leaf.expected_features(game))
    assert fitted["cards_check"]["rms_error"] >= 0
