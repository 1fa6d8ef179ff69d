"""Every way a turn can be refused that the example files do not already cover: the error type, the
rule id, the 1-based play index, a message naming the card, the pile and the reason, and a game left
exactly as it was."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import assert_rejected, coop_game, f2f_game, push, snapshot

import games


def face() -> games.GameState:
    return f2f_game([10, 20, 30, 40, 50, 59], [2, 3, 4, 5, 6, 7])


def coop(game: str = "the-game") -> games.GameState:
    return coop_game(game, [[10, 20, 30, 40, 50, 59, 61], [2, 3, 5, 6, 8, 9, 12]])


CARD = ("card",)
PILE = ("pile",)


def test_a_card_not_in_hand() -> None:
    assert_rejected(face(), "10>p0.up 22>p0.up", "not-in-hand", 2, mentions=["hand"], names=CARD)
    assert_rejected(coop(), "2>up1 10>up1", "not-in-hand", 1, mentions=["hand"], names=CARD)  # seat 1's card
    assert_rejected(coop("extreme"), "10>up1 99>up1", "not-in-hand", 2, mentions=["hand"], names=CARD)


def test_the_same_card_twice() -> None:
    assert_rejected(face(), "10>p0.up 10>p0.down", "played-twice", 2, mentions=["already"], names=CARD)
    assert_rejected(coop(), "10>up1 20>up1 10>down1", "played-twice", 3, mentions=["already"], names=CARD)


def test_a_pile_that_does_not_exist() -> None:
    assert_rejected(face(), "10>p0.up 20>up1", "unknown-pile", 2, names=PILE)
    assert_rejected(face(), "10>p2.up 20>p0.up", "unknown-pile", 1, names=PILE)
    assert_rejected(coop(), "10>up3 20>up1", "unknown-pile", 1, names=PILE)
    assert_rejected(coop("extreme"), "10>up1 20>p0.up", "unknown-pile", 2, names=PILE)


@pytest.mark.parametrize(
    "text, rule, index",
    [("10>p0.up 22>p0.up", "not-in-hand", 2), ("10>p0.up 10>p0.down", "played-twice", 2),
     ("10>p0.up 20>up1", "unknown-pile", 2)],
)  # fmt: skip
def test_every_play_error_names_the_card_and_the_pile(text: str, rule: str, index: int) -> None:
    assert_rejected(face(), text, rule, index)


def test_a_card_against_its_pile() -> None:
    state = face()
    push(state, "30>p0.up 40>p0.down")
    push(state, "2>p1.up 3>p1.up")
    assert_rejected(state, "10>p0.up 50>p0.up", "pile-order", 1, mentions=["30"])
    assert_rejected(state, "59>p0.down 10>p0.up", "pile-order", 1, mentions=["40"])
    assert_rejected(state, "50>p0.up 59>p0.up 10>p0.up", "pile-order", 3, mentions=["59"])


def test_too_few_plays() -> None:
    assert_rejected(face(), "10>p0.up", "too-few-plays", None, mentions=["2"])
    assert_rejected(coop(), "10>up1", "too-few-plays", None, mentions=["2"])
    assert_rejected(coop("extreme"), "10>up1", "too-few-plays", None, mentions=["2"])


def test_an_empty_turn() -> None:
    assert_rejected(face(), "", "too-few-plays", None)
    assert_rejected(coop(), "", "empty-turn", None)


@pytest.mark.parametrize(
    "raw",
    [
        "10>up1 20>up1",
        17,
        None,
        {"plays": "10>up1"},
        {"plays": [[10, "up1"]], "extra": True},
        {"plays": [[10, "up1"], [20, "up1"]], "signals": ["up1", "jump"]},
        [[10]],
        [[10, "up1", "again"]],
        [["10", "up1"]],
        [[True, "up1"]],
        [[10.0, "up1"]],
        [[10, 1]],
        [{"card": 10}],
    ],
)
def test_a_malformed_turn_is_refused_with_what_is_wrong(raw: Any) -> None:
    state = coop()
    before = snapshot(state)
    with pytest.raises(games.IllegalTurn) as caught:
        state.push(raw)
    assert caught.value.rule == "malformed-turn"
    assert not isinstance(caught.value, games.CommandBroken)
    assert len(str(caught.value)) > len("malformed turn: ")
    assert snapshot(state) == before


def test_the_documented_turn_forms_are_accepted() -> None:
    for raw in (
        {"plays": [[10, "up1"], [20, "up1"]]},
        {"plays": [[10, "up1"], [20, "up1"]], "signals": {"up1": "jump"}},
        [[10, "up1"], [20, "up1"]],
        [{"card": 10, "pile": "up1"}, {"card": 20, "pile": "up1"}],
        games.Turn((games.Play(10, "up1"), games.Play(20, "up1")), {"down1": "keep-off"}),
    ):
        state = coop()
        state.push(raw)
        assert state.observation(0)["piles"]["up1"]["history"] == [1, 10, 20]


def test_turn_text_and_json_forms() -> None:
    turn = games.Turn.from_json({"plays": [[17, "up1"], [7, "up1"]], "signals": {"up1": "jump"}})
    assert str(turn) == "17>up1 7>up1 | up1=jump"
    assert str(games.Play(17, "up1")) == "17>up1"
    assert games.Turn.from_json(turn.to_json()) == turn


def test_nothing_is_accepted_once_the_game_is_over() -> None:
    state = face()
    state.forfeit(0, games.Termination.CRASH, "exit code 1")
    before = snapshot(state)
    with pytest.raises(games.GameOver) as caught:
        state.push([[10, "p0.up"], [20, "p0.up"]])
    assert caught.value.rule == "game-over" and isinstance(caught.value, games.IllegalTurn)
    with pytest.raises(games.GameOver):
        state.forfeit(1, games.Termination.TIMEOUT, "late")
    assert state.legal_plays() == []
    assert snapshot(state) == before


def test_an_illegal_turn_recorded_as_the_end_of_the_game() -> None:
    state = coop("extreme")
    raw = {"plays": [[10, "up1"], [20, "up1"], [11, "up1"]]}  # 11 is seat 1's card
    with pytest.raises(games.IllegalTurn) as caught:
        state.push(raw)
    outcome = state.reject(raw, caught.value, ms=3.5)
    assert outcome == state.outcome
    assert (outcome.termination, outcome.seat, outcome.score) == (games.Termination.ILLEGAL_TURN, 0, 98)
    assert str(caught.value) in outcome.detail
    log = state.log.to_json()
    assert log["rejected_turn"]["turn"] == raw and log["rejected_turn"]["rule"] == "not-in-hand"
    assert games.replay(log) == outcome


def test_a_broken_command_recorded_as_the_end_of_the_game() -> None:
    state = coop_game("extreme", [[7, 8, 9, 10, 12, 13, 15, 16]])
    raw = [[7, "up1"], [8, "up2"]]  # the skull on up1 stays uncovered
    with pytest.raises(games.CommandBroken) as caught:
        state.push(raw)
    outcome = state.reject(raw, caught.value)
    assert (outcome.termination, outcome.seat, outcome.score) == (games.Termination.COMMAND_BROKEN, 0, 98)
    assert games.replay(state.log.to_json()) == outcome
