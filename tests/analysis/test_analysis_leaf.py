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
    assert leaf.leaf_value(state, winner) == leaf.Leaf(1.0)
    assert leaf.leaf_value(state, 1 - winner) == leaf.Leaf(0.0)
    solo = finished("the-game", 1)
    assert leaf.leaf_value(solo, 0) == leaf.Leaf(float(solo.outcome.score == 0), float(solo.outcome.score))


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
    assert len(fitted["win"]) == len(leaf.expected_features(game))
