"""`python -m games replay` accepts nothing unchecked: the seats must be the game's (as many as options.players, in seat
order), the hand size the one the rules give for the game and the team, and every member of the log, its options,
seats, turns, plays and result one the format has; a play object with a member it does not know is refused in a
bot's turn and in a log alike."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import games
from bots.match import BotSpec, MatchSpec, run_match
from games import IllegalTurn, Turn
from games.__main__ import main


def refused(log: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run `python -m games replay` on `log`; it must exit 1. Return what it said."""
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    code = main(["replay", str(path)])
    err = capsys.readouterr().err
    assert code == 1, err
    return err


def played(game: str, *bots: str) -> dict[str, Any]:
    return run_match(MatchSpec(game, [BotSpec(bot) for bot in bots], games=1, seed="strict")).games[0].log


@pytest.fixture(scope="module")
def logs() -> dict[str, dict[str, Any]]:
    return {
        "face-to-face": played("face-to-face", "house:greedy", "house:random"),
        "the-game": played("the-game", "house:greedy", "house:greedy", "house:greedy"),
        "extreme": played("extreme", "house:greedy", "house:random"),
    }


@pytest.mark.parametrize("game", ["face-to-face", "the-game", "extreme"])
def test_the_untampered_logs_replay(logs, game):
    assert games.replay(copy.deepcopy(logs[game])) is not None


@pytest.mark.parametrize("change", ["empty", "short", "long"])
def test_seats_must_be_as_many_as_the_games_players(logs, tmp_path, capsys, change):
    log = copy.deepcopy(logs["the-game"])
    extra = {"seat": 3, "bot": "house:greedy", "version": None}
    log["seats"] = {"empty": [], "short": log["seats"][:2], "long": [*log["seats"], extra]}[change]
    assert f"seats lists {len(log['seats'])} seat(s), but options.players is 3" in refused(log, tmp_path, capsys)


def test_seats_go_in_seat_order_and_name_a_bot_and_a_version(logs, tmp_path, capsys):
    log = copy.deepcopy(logs["face-to-face"])
    log["seats"].reverse()
    assert "seats: entry 0 is for seat 1" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["face-to-face"])
    del log["seats"][1]["version"]
    assert "seats: entry 1 lacks version" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["face-to-face"])
    log["seats"][0]["bot"] = 7
    assert "seats: entry 0's bot must be a string or null" in refused(log, tmp_path, capsys)


@pytest.mark.parametrize(("game", "claimed"), [("the-game", 7), ("the-game", 5), ("extreme", 8), ("face-to-face", 7)])
def test_the_hand_size_is_the_rules_one(logs, tmp_path, capsys, game, claimed):
    log = copy.deepcopy(logs[game])
    log["options"]["hand_size"] = claimed
    said = refused(log, tmp_path, capsys)
    assert "the log's set-up is invalid" in said and "cards" in said, said


def test_a_tampered_hand_size_is_refused_even_where_the_game_plays_on_under_it(tmp_path, capsys):
    """A game that ends at its first turn (a crash) plays the same under any hand size: only the rule catches it."""
    log = played("the-game", "house:greedy")
    log["options"]["hand_size"] = 7
    log["turns"], log["rejected_turn"] = [], None
    log["result"] = {"termination": "crash", "winner": None, "score": 98, "seat": 0, "detail": "play raised E"}
    untampered = copy.deepcopy(log)
    untampered["options"]["hand_size"] = 8
    assert games.replay(untampered).termination == games.Termination.CRASH
    assert "the rules deal 8 cards to each of 1 player(s)" in refused(log, tmp_path, capsys)


def test_options_must_name_players_and_hand_size_as_integers_and_nothing_else(logs, tmp_path, capsys):
    log = copy.deepcopy(logs["the-game"])
    log["options"]["variant"] = "mine"
    assert "the log's options has unknown member(s) ['variant']" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["the-game"])
    log["options"]["hand_size"] = 6.0
    assert "options: hand_size must be an integer" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["the-game"])
    del log["options"]["hand_size"]
    assert "the log's options lacks hand_size" in refused(log, tmp_path, capsys)


def test_a_log_member_the_format_does_not_have_is_refused(logs, tmp_path, capsys):
    log = copy.deepcopy(logs["face-to-face"])
    log["comment"] = "trust me"
    assert "the log has unknown member(s) ['comment']" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["face-to-face"])
    log["result"]["bonus"] = 1
    assert "the result has unknown member(s) ['bonus']" in refused(log, tmp_path, capsys)


def test_a_logged_play_with_a_member_it_does_not_know_is_refused(logs, tmp_path, capsys):
    log = copy.deepcopy(logs["face-to-face"])
    card, pile = log["turns"][0]["plays"][0]
    log["turns"][0]["plays"][0] = {"card": card, "pile": pile, "note": "extra"}
    assert "turn 1: play 1:" in refused(log, tmp_path, capsys)


def test_a_logged_turn_with_a_member_it_does_not_know_is_refused(logs, tmp_path, capsys):
    log = copy.deepcopy(logs["the-game"])
    log["turns"][2]["note"] = "extra"
    assert "turn 3: the turn entry has unknown member(s) ['note']" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["the-game"])
    log["turns"][2]["signals"] = None
    assert "turn 3: the turn's signals must be an object" in refused(log, tmp_path, capsys)
    log = copy.deepcopy(logs["the-game"])
    log["turns"][2]["ms"] = "fast"
    assert "turn 3: the turn's ms must be a number or null" in refused(log, tmp_path, capsys)


def test_a_bots_play_object_with_a_member_it_does_not_know_is_malformed():
    with pytest.raises(IllegalTurn) as refusal:
        Turn.from_json({"plays": [{"card": 17, "pile": "up1", "also": "this"}]})
    assert refusal.value.rule == "malformed-turn"
    assert "play 1: unknown key(s) ['also']" in refusal.value.message
    assert Turn.from_json({"plays": [{"card": 17, "pile": "up1"}]}) == Turn.from_json([[17, "up1"]])


def test_such_a_turn_from_a_bot_ends_its_game_as_an_illegal_turn_that_replays(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(
        "def play(observation):\n"
        "    hand = sorted(observation['hand'])\n"
        "    return {'plays': [{'card': card, 'pile': 'up1', 'why': 'low'} for card in hand[:2]]}\n"
    )
    spec = MatchSpec("the-game", [BotSpec(str(bot))], games=1, sandbox=False)
    game = run_match(spec).games[0]
    assert game.outcome.termination == games.Termination.ILLEGAL_TURN
    assert game.log["rejected_turn"]["rule"] == "malformed-turn"
    assert games.replay(game.log) == game.outcome


def test_a_log_of_the_engine_alone_names_every_seat_and_replays():
    state = games.new_game("the-game", 4, seed="alone")
    while state.outcome is None:
        state.forfeit(state.to_move, games.Termination.CRASH, "no bot")
    log = state.log.to_json()
    assert log["seats"] == [{"seat": seat, "bot": None, "version": None} for seat in range(4)]
    assert games.replay(log) == state.outcome
