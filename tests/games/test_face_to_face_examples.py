"""RULES.md section 1, The Game: Face to Face: examples E1-E10 and the edge cases around them.

Tim is seat 0, Sarah is seat 1. Unless a test says otherwise every deck holds the chosen cards first and
the rest ascending, so a seat that plays its two lowest cards on its own ascending pile never gets stuck.
"""

from __future__ import annotations

from conftest import assert_rejected, f2f_game, hand, push, top

import games
from games import Play, Termination

FILLER = [2, 3, 4, 5, 6, 7]  # a hand that plays 2 cards at a time up its own ascending pile


def filler_turn(state: games.GameState) -> None:
    """The mover plays their two lowest cards on their own ascending pile."""
    seat = state.to_move
    low = sorted(hand(state, seat))[:2]
    push(state, " ".join(f"{card}>p{seat}.up" for card in low))


def test_e1_own_piles_climb_and_fall() -> None:
    state = f2f_game([3, 11, 12, 13, 18, 20], FILLER, draws0=[34, 54, 50, 48, 41, 40, 37, 59])
    push(state, "3>p0.up 11>p0.up 12>p0.up 13>p0.up 18>p0.up 20>p0.up")
    filler_turn(state)
    push(state, "34>p0.up 54>p0.down")
    filler_turn(state)
    push(state, "50>p0.down 48>p0.down")
    filler_turn(state)
    push(state, "41>p0.down 40>p0.down")
    filler_turn(state)
    push(state, "37>p0.down 59>p0.up")
    piles = state.observation(1)["piles"]
    assert piles["p0.up"]["history"] == [1, 3, 11, 12, 13, 18, 20, 34, 59]
    assert piles["p0.down"]["history"] == [60, 54, 50, 48, 41, 40, 37]
    assert state.outcome is None


def e2_position() -> games.GameState:
    """Tim's own ascending pile shows 27; he holds 17, 18, 26, 28 and 58, 57."""
    state = f2f_game([27, 59, 17, 18, 26, 28], FILLER, draws0=[58, 57])
    push(state, "27>p0.up 59>p0.down")
    filler_turn(state)
    assert top(state, "p0.up") == 27 and state.to_move == 0
    return state


def test_e2_own_ascending_trick() -> None:
    legal = set(e2_position().legal_plays())
    assert {Play(17, "p0.up"), Play(28, "p0.up")} <= legal
    assert not {Play(18, "p0.up"), Play(26, "p0.up")} & legal
    push(e2_position(), "17>p0.up 58>p0.down")
    push(e2_position(), "28>p0.up 58>p0.down")
    for card in (18, 26):
        assert_rejected(e2_position(), f"{card}>p0.up 58>p0.down", "pile-order", 1, mentions=["27", "17"])


def e3_position() -> games.GameState:
    """Sarah's own descending pile shows 35; she holds 45, 44, 46, 34 and 3, 4."""
    state = f2f_game(FILLER, [35, 2, 45, 44, 46, 34], draws1=[3, 4])
    filler_turn(state)
    push(state, "35>p1.down 2>p1.up")
    filler_turn(state)
    assert top(state, "p1.down") == 35 and state.to_move == 1
    return state


def test_e3_own_descending_trick() -> None:
    legal = set(e3_position().legal_plays())
    assert {Play(45, "p1.down"), Play(34, "p1.down")} <= legal
    assert not {Play(44, "p1.down"), Play(46, "p1.down")} & legal
    push(e3_position(), "45>p1.down 3>p1.up")
    push(e3_position(), "34>p1.down 3>p1.up")
    for card in (44, 46):
        assert_rejected(e3_position(), f"{card}>p1.down 3>p1.up", "pile-order", 1, mentions=["35", "45"])


def e4_position() -> games.GameState:
    """Sarah's ascending pile shows 29; Tim holds 12, 29, 30, 39 and 50, 51."""
    state = f2f_game([12, 29, 30, 39, 50, 51], [29, 59, 2, 3, 4, 5], start_seat=1)
    push(state, "29>p1.up 59>p1.down")
    return state


def test_e4_opponent_ascending_takes_only_lower_cards() -> None:
    legal = set(e4_position().legal_plays())
    assert Play(12, "p1.up") in legal
    assert not {Play(29, "p1.up"), Play(30, "p1.up"), Play(39, "p1.up")} & legal
    push(e4_position(), "12>p1.up 50>p0.up")
    for card in (29, 30, 39):
        assert_rejected(e4_position(), f"{card}>p1.up 50>p0.up", "opponent-pile-order", 1, mentions=["29"])
    # 39 is 29 + 10: the backwards trick never applies to the opponent's piles, in any position.
    assert_rejected(e4_position(), "50>p0.up 39>p1.up", "opponent-pile-order", 2, mentions=["29"])


def e5_position() -> games.GameState:
    """Tim's piles show 18 (ascending) and 40 (descending); Sarah holds 17, 8, 41, 59, 30, 50."""
    state = f2f_game([18, 40, 2, 3, 4, 5], [17, 8, 41, 59, 30, 50])
    push(state, "18>p0.up 40>p0.down")
    return state


def test_e5_opponent_piles_take_any_lower_or_higher_card() -> None:
    for card, pile in [(17, "p0.up"), (8, "p0.up"), (41, "p0.down"), (59, "p0.down")]:
        assert Play(card, pile) in e5_position().legal_plays()
        push(e5_position(), f"{card}>{pile} 50>p1.down")
    assert Play(30, "p0.down") not in e5_position().legal_plays()
    assert_rejected(e5_position(), "30>p0.down 50>p1.down", "opponent-pile-order", 1, mentions=["40"])
    assert_rejected(e5_position(), "50>p1.down 30>p0.down", "opponent-pile-order", 2, mentions=["40"])


def test_e6_own_piles_only_draws_two() -> None:
    state = f2f_game(FILLER, [10, 20, 30, 2, 3, 4], draws1=[40, 41, 42])
    filler_turn(state)
    assert state.observation(1)["hand_sizes"] == [6, 6]
    push(state, "10>p1.up 20>p1.up 30>p1.up")
    seen = state.observation(1)
    assert seen["hand_sizes"] == [6, 5]
    assert seen["hand"] == [2, 3, 4, 40, 41]
    assert seen["draw_pile_sizes"] == [50, 50]


def e7_position() -> games.GameState:
    """Sarah's piles show 30 and 40; Tim holds 10, 20, 30, 40, 50, 5."""
    state = f2f_game([10, 20, 30, 40, 50, 5], [30, 40, 2, 3, 4, 6], draws0=[51, 52, 53, 54, 55, 56], start_seat=1)
    push(state, "30>p1.up 40>p1.down")
    return state


def test_e7_one_card_on_opponent_refills_to_six() -> None:
    state = e7_position()
    push(state, "10>p0.up 20>p0.up 5>p1.up 30>p0.up 40>p0.up")
    seen = state.observation(0)
    assert seen["hand"] == [50, 51, 52, 53, 54, 55]
    assert seen["draw_pile_sizes"] == [47, 50]
    assert seen["piles"]["p1.up"]["history"] == [1, 30, 5]


def test_opponent_play_may_come_first_or_last() -> None:
    first = e7_position()
    push(first, "5>p1.up 10>p0.up")
    assert first.observation(0)["hand_sizes"][0] == 6
    last = e7_position()
    push(last, "10>p0.up 20>p0.up 50>p1.down")
    assert last.observation(0)["hand_sizes"][0] == 6


def test_e8_two_opponent_plays_are_illegal_whatever_else() -> None:
    for text, index in [
        ("10>p1.up 5>p1.up", 2),
        ("5>p1.up 50>p1.down", 2),
        ("50>p1.down 20>p0.up 30>p0.up 10>p1.up", 4),
        ("20>p0.up 5>p1.up 30>p0.up 50>p1.down", 4),
    ]:
        assert_rejected(e7_position(), text, "two-opponent-plays", index, mentions=["opponent"])
    assert Play(50, "p1.down") not in e7_position().legal_plays([Play(5, "p1.up")])
    assert Play(50, "p1.down") in e7_position().legal_plays([Play(10, "p0.up")])


def test_e9_one_play_with_three_cards_is_illegal_then_a_last_card_wins() -> None:
    state = f2f_game(FILLER, FILLER)
    push(state, "2>p0.up 3>p0.up 4>p0.up 5>p0.up 6>p0.up")
    filler_turn(state)
    assert hand(state, 0) == [7, 8, 9]
    assert_rejected(state, "7>p0.up", "too-few-plays", None, mentions=["2"])
    while state.observation(0)["draw_pile_sizes"][0] > 0:
        filler_turn(state)
        filler_turn(state)
    assert hand(state, 0) == [57, 58, 59] and state.to_move == 0
    assert state.observation(0)["min_plays"] == 2
    assert_rejected(state, "57>p0.up", "too-few-plays", None, mentions=["2"])  # even with an empty draw pile
    filler_turn(state)
    filler_turn(state)
    assert hand(state, 0) == [59] and state.to_move == 0
    assert state.observation(0)["min_plays"] == 1
    push(state, "59>p0.up")
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.winner) == (Termination.ALL_CARDS_PLAYED, 0)
    assert state.to_move is None
    assert games.replay(state.log.to_json()) == state.outcome


def e10_position() -> games.GameState:
    state = f2f_game([27, 59, 17, 7, 30, 40], FILLER)
    push(state, "27>p0.up 59>p0.down")
    filler_turn(state)
    return state


def test_e10_trick_chain() -> None:
    state = e10_position()
    assert Play(7, "p0.up") not in state.legal_plays()
    assert Play(7, "p0.up") in state.legal_plays([Play(17, "p0.up")])
    push(state, "17>p0.up 7>p0.up 30>p0.up")
    assert state.observation(0)["piles"]["p0.up"]["history"] == [1, 27, 17, 7, 30]


def stuck_position(tim_hand: list[int]) -> games.GameState:
    """Tim's piles show 33 (up) and 3 (down); Sarah's show 2 and 59, so nothing fits them."""
    state = f2f_game([33, 3, *tim_hand[:4]], [2, 59, 4, 5, 6, 8], draws0=tim_hand[4:])
    push(state, "33>p0.up 3>p0.down")
    push(state, "2>p1.up 59>p1.down")
    return state


def test_a_turn_where_the_first_card_makes_the_second_playable_is_not_stuck() -> None:
    state = stuck_position([34, 24, 10, 12, 14, 15])
    assert state.outcome is None and state.to_move == 0
    assert state.legal_plays() == [Play(34, "p0.up")]
    push(state, "34>p0.up 24>p0.up")


def test_a_player_without_a_legal_turn_loses_at_the_start_of_it() -> None:
    state = stuck_position([34, 22, 10, 12, 14, 15])  # only 34 fits, and nothing after it
    outcome = state.outcome
    assert outcome is not None and state.to_move is None
    assert (outcome.termination, outcome.winner, outcome.seat, outcome.score) == (Termination.STUCK, 1, 0, None)
    assert games.replay(state.log.to_json()) == outcome


def test_the_opponents_piles_count_for_the_stuck_test() -> None:
    # Sarah's ascending pile shows 30 instead of 2: Tim's single own play plus 10 on it is a turn.
    state = f2f_game([33, 3, 34, 22, 10, 12], [30, 59, 4, 5, 6, 8], draws0=[14, 15])
    push(state, "33>p0.up 3>p0.down", "30>p1.up 59>p1.down")
    assert state.outcome is None
    push(state, "34>p0.up 10>p1.up")


def test_signals_do_not_exist_in_face_to_face() -> None:
    state = e10_position()
    assert state.observation(0)["signals"] == []
    assert_rejected(state, "17>p0.up 30>p0.up | p0.up=jump", "signals", None)
