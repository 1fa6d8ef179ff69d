"""RULES.md section 2, The Game: examples E11-E13, drawing, seat order, signals and the end."""

from __future__ import annotations

import pytest
from conftest import assert_rejected, coop_game, hand, push

import games
from games import Play, Termination

SOLO = [47, 99, 37, 38, 48, 50, 51, 52]


def e11_position() -> games.GameState:
    """Solo: up1 shows 47; the hand holds 37, 38, 48 and 50, 51, 52, 2, 3."""
    state = coop_game("the-game", [SOLO], draws=[2, 3])
    push(state, "47>up1 99>down1")
    return state


def test_e11_ascending_trick() -> None:
    legal = set(e11_position().legal_plays())
    assert {Play(37, "up1"), Play(48, "up1")} <= legal
    assert Play(38, "up1") not in legal
    push(e11_position(), "37>up1 2>up2")
    push(e11_position(), "48>up1 2>up2")
    assert_rejected(e11_position(), "38>up1 2>up2", "pile-order", 1, mentions=["47", "37"])
    assert_rejected(e11_position(), "2>up2 38>up1", "pile-order", 2, mentions=["47"])


def test_descending_trick_and_order() -> None:
    state = coop_game("the-game", [[60, 70, 59, 71, 2, 3, 4, 5]])
    push(state, "60>down1 70>down1 59>down1")  # 70 is 60 + 10
    assert state.observation(0)["piles"]["down1"]["history"] == [100, 60, 70, 59]
    assert_rejected(state, "71>down1 2>up1", "pile-order", 1, mentions=["59", "69"])


def test_e12_solo_hand_of_eight_draws_what_it_played() -> None:
    state = coop_game("the-game", [[10, 20, 30, 40, 50, 60, 70, 80]], draws=[11, 12, 13, 14])
    seen = state.observation(0)
    assert (seen["hand_size"], seen["hand_sizes"], seen["draw_pile_sizes"]) == (8, [8], [90])
    push(state, "10>up1 20>up1 30>up1")
    seen = state.observation(0)
    assert seen["hand"] == [11, 12, 13, 40, 50, 60, 70, 80]
    assert seen["draw_pile_sizes"] == [87]


@pytest.mark.parametrize("players, size", [(1, 8), (2, 7), (3, 6), (4, 6), (5, 6)])
def test_hand_sizes_and_deal_order(players: int, size: int) -> None:
    state = games.new_game("the-game", players=players, seed=7)
    deck = state.log.to_json()["decks"][0]
    for seat in range(players):
        seen = state.observation(seat)
        assert seen["hand_size"] == size
        assert seen["hand"] == sorted(deck[seat * size : (seat + 1) * size])
        assert seen["hand_sizes"] == [size] * players
        assert seen["draw_pile_sizes"] == [98 - players * size]


def e13_position() -> games.GameState:
    """Solo with the deck ascending: play the two lowest cards up1 until the draw pile is empty."""
    state = coop_game("the-game", [list(range(2, 10))])
    while state.observation(0)["draw_pile_sizes"][0] > 0:
        assert state.observation(0)["min_plays"] == 2
        low = hand(state, 0)[:2]
        assert_rejected(state, f"{low[0]}>up1", "too-few-plays", None, mentions=["2"])
        push(state, f"{low[0]}>up1 {low[1]}>up1")
    return state


def test_e13_one_card_turns_once_the_draw_pile_is_empty() -> None:
    state = e13_position()
    assert hand(state, 0) == list(range(92, 100))
    assert state.observation(0)["min_plays"] == 1
    for card in range(92, 100):
        push(state, f"{card}>up1")
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.score, state.outcome.winner) == (
        Termination.ALL_CARDS_PLAYED,
        0,
        None,
    )
    assert state.outcome.team_won
    assert games.replay(state.log.to_json()) == state.outcome


def test_a_seat_without_cards_is_skipped_and_the_team_wins() -> None:
    # Seat 0 plays every card of its hands up up1, seat 1 up up2: 7 cards a turn.
    state = coop_game("the-game", [list(range(2, 9)), list(range(9, 16))])
    while state.observation(0)["draw_pile_sizes"][0] > 0:
        seat = state.to_move
        pile = "up1" if seat == 0 else "up2"
        push(state, " ".join(f"{card}>{pile}" for card in hand(state, seat)))
    push(state, " ".join(f"{card}>up1" for card in hand(state, 0)))
    assert state.observation(0)["hand_sizes"] == [0, 7] and state.to_move == 1
    rest = hand(state, 1)
    push(state, f"{rest[0]}>up2")
    assert state.to_move == 1, "seat 0 holds no cards and must be skipped"
    push(state, " ".join(f"{card}>up2" for card in rest[1:]))
    assert state.outcome is not None and state.outcome.termination == Termination.ALL_CARDS_PLAYED
    assert state.outcome.score == 0


def test_turns_pass_in_seat_order() -> None:
    state = coop_game(
        "the-game", [[2, 3, 50, 51, 52, 53], [4, 5, 54, 55, 56, 57], [6, 8, 58, 59, 61, 62]], start_seat=1
    )
    assert state.to_move == 1
    push(state, "4>up1 5>up1")
    assert state.to_move == 2
    push(state, "6>up1 8>up1")
    assert state.to_move == 0
    push(state, "2>up2 3>up2")
    assert state.to_move == 1


def stuck_position(rest_of_hand: list[int]) -> games.GameState:
    """Solo: the piles end at 99, 98, 2 and 3, which only 89, 88, 12 and 13 (by the trick) still fit."""
    state = coop_game("the-game", [[99, 98, 2, 3, *rest_of_hand[:4]]], draws=rest_of_hand[4:])
    push(state, "99>up1 98>up2 2>down1 3>down2")
    return state


def test_no_legal_turn_ends_the_game_with_the_cards_not_placed() -> None:
    state = stuck_position([50, 51, 52, 54, 55, 56, 57, 58])
    outcome = state.outcome
    assert outcome is not None and state.to_move is None
    assert (outcome.termination, outcome.score, outcome.seat, outcome.winner) == (Termination.STUCK, 94, 0, None)
    assert not outcome.team_won
    assert games.replay(state.log.to_json()) == outcome


def test_one_fitting_card_is_not_enough_while_the_draw_pile_has_cards() -> None:
    state = stuck_position([89, 51, 52, 54, 55, 56, 57, 58])
    assert state.outcome is not None and state.outcome.termination == Termination.STUCK


def test_a_card_that_makes_the_next_one_fit_counts() -> None:
    state = stuck_position([89, 79, 52, 54, 55, 56, 57, 58])  # 89 on 99, then 79 on 89, both by the trick
    assert state.outcome is None
    push(state, "89>up1 79>up1")


def signals_of(state: games.GameState, seat: int) -> list[dict[str, str]]:
    return state.observation(seat)["signals"]


def test_signals_are_public_and_kept_until_changed() -> None:
    state = coop_game("the-game", [[2, 3, 4, 5, 6, 8, 9], [10, 12, 13, 14, 15, 16, 17]])
    assert signals_of(state, 1) == [dict.fromkeys(["up1", "up2", "down1", "down2"], "none")] * 2
    push(state, "2>up1 3>up1 | up1=jump down2=keep-off")
    expected = [
        {"up1": "jump", "up2": "none", "down1": "none", "down2": "keep-off"},
        {"up1": "none", "up2": "none", "down1": "none", "down2": "none"},
    ]
    assert signals_of(state, 0) == signals_of(state, 1) == expected
    push(state, "10>up2 12>up2 | up2=keep-off")
    push(state, "4>up1 5>up1 | up1=none")
    expected = [
        {"up1": "none", "up2": "none", "down1": "none", "down2": "keep-off"},
        {"up1": "none", "up2": "keep-off", "down1": "none", "down2": "none"},
    ]
    assert signals_of(state, 0) == signals_of(state, 1) == expected
    assert state.log.to_json()["turns"][0]["signals"] == {"up1": "jump", "down2": "keep-off"}


def test_bad_signals_are_rejected() -> None:
    state = coop_game("the-game", [[2, 3, 4, 5, 6, 8, 9], [10, 12, 13, 14, 15, 16, 17]])
    assert_rejected(state, "2>up1 3>up1 | up3=jump", "unknown-pile", None, mentions=["up3"])
    assert_rejected(state, "2>up1 3>up1 | up1=play-the-17", "malformed-turn", None, mentions=["play-the-17"])
