"""The engine's small shared values: Turn is an immutable, hashable value; game ids and forfeits are defined once."""

from __future__ import annotations

import dataclasses

import pytest

import games
from games import Play, Termination, Turn


def test_a_turn_is_frozen_and_hashable():
    turn = Turn.from_json({"plays": [[17, "up1"], [7, "up1"]], "signals": {"up1": "jump"}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.plays = ()
    assert turn.plays == (Play(17, "up1"), Play(7, "up1"))
    assert turn.signals == (("up1", "jump"),)
    same = Turn.parse("17>up1 7>up1 | up1=jump")
    assert same == turn and hash(same) == hash(turn)
    assert len({turn, same, Turn.parse("17>up1 7>up1")}) == 2


def test_turns_share_no_mutable_default():
    first, second = Turn((Play(2, "up1"),)), Turn((Play(3, "up1"),))
    assert first.signals == () and first.signals is second.signals  # the empty tuple: nothing to mutate
    first.signals_json()["up1"] = "jump"
    assert first.signals == () and second.signals_json() == {}


def test_the_constructor_stores_lists_and_mappings_as_tuples():
    turn = Turn([[10, "up1"], Play(20, "up1")], {"down1": "keep-off", "up2": "jump"})
    assert turn.plays == (Play(10, "up1"), Play(20, "up1"))
    assert all(type(play) is Play for play in turn.plays)
    assert turn.signals == (("down1", "keep-off"), ("up2", "jump"))
    assert turn == Turn(turn.plays, [("down1", "keep-off"), ("up2", "jump")])
    hash(turn)


@pytest.mark.parametrize(
    "raw",
    [
        {"plays": [[17, "up1"], [7, "up1"]], "signals": {"up2": "keep-off", "up1": "jump"}},
        {"plays": [[30, "down2"]], "signals": {}},
    ],
)
def test_the_json_form_is_unchanged(raw):
    turn = Turn.from_json(raw)
    assert turn.to_json() == raw
    assert list(turn.to_json()["signals"]) == list(raw["signals"])  # the order the bot sent
    assert Turn.from_json(turn.to_json()) == turn


def test_a_logged_turn_keeps_the_json_form():
    state = games.new_game("the-game", 1, seed=3)
    hand = sorted(state.hands[0])
    turn = Turn((Play(hand[0], "up1"), Play(hand[1], "up1")), {"down1": "keep-off"})
    state.push(turn)
    entry = state.log.turns[0]
    assert entry["plays"] == [[hand[0], "up1"], [hand[1], "up1"]]
    assert entry["signals"] == {"down1": "keep-off"} and type(entry["signals"]) is dict
    assert state.signals[0]["down1"] == "keep-off"


def test_forfeits_are_the_terminations_that_blame_a_seat_for_failing():
    assert games.FORFEITS == {
        Termination.ILLEGAL_TURN,
        Termination.COMMAND_BROKEN,
        Termination.TIMEOUT,
        Termination.CRASH,
        Termination.PROTOCOL_ERROR,
        Termination.RESOURCE_LIMIT,
        Termination.SANDBOX_VIOLATION,
    }
    assert [t for t in Termination if not t.is_forfeit] == [Termination.ALL_CARDS_PLAYED, Termination.STUCK]
    assert "crash" in games.FORFEITS and "stuck" not in games.FORFEITS  # the stored text form works too
    assert all(t.is_forfeit for t in Termination if t.is_bot_failure)


def test_the_game_ids_are_one_set_with_display_names():
    assert games.GAME_IDS == (games.FACE_TO_FACE, games.THE_GAME, games.EXTREME) == tuple(games.GAME_NAMES)
    assert games.GAME_NAMES[games.FACE_TO_FACE] == "The Game: Face to Face"
    for game_id in games.GAME_IDS:
        assert games.new_game(game_id, seed=1).game_id == game_id
    with pytest.raises(TypeError):
        games.GAME_NAMES["chess"] = "Chess"
