"""RULES.md section 3, The Game Extreme: every command, E14, and the end test counting commands.

Default table: stop 4 28 53 77, skull 7 32 56 81, three 11 35 60 84, silence 14 39 63 88,
no-trick 18 42 67 91, one-pile 21 46 70 95, draw-one 25 49 74 98.
"""

from __future__ import annotations

from collections.abc import Sequence

from conftest import assert_rejected, coop_game, hand, push
from rules_oracle import DEFAULT_COMMANDS

import games
from games import Play, Termination


def solo(first_hand: Sequence[int], draws: Sequence[int] = ()) -> games.GameState:
    return coop_game("extreme", [first_hand], draws=draws)


def in_force(state: games.GameState) -> dict[str, str]:
    commands = state.observation(0)["commands"]
    return {pile: name for pile, name in commands["in_force"].items() if name is not None}


def test_the_observation_shows_the_command_table() -> None:
    commands = solo([50, 51, 52, 54, 55, 57, 58, 59]).observation(0)["commands"]
    expected = {str(card): name for name, cards in DEFAULT_COMMANDS.items() for card in cards}
    assert commands["table"] == expected
    assert {name for name in commands["in_force"].values() if name is not None} == set()
    assert coop_game("the-game", [[50, 51, 52, 54, 55, 57, 58, 59]]).observation(0)["commands"] is None


def test_e14_number_three_stop_is_exactly_three_and_draws_three() -> None:
    state = solo([50, 60, 77, 51, 52, 54, 55, 57], draws=[58, 59, 61])
    push(state, "50>up1 60>up1 77>up1")
    seen = state.observation(0)
    assert seen["hand"] == [51, 52, 54, 55, 57, 58, 59, 61]
    assert seen["draw_pile_sizes"] == [87]


def three_position() -> games.GameState:
    return solo([50, 51, 52, 60, 61, 62, 64, 77])


def test_three_means_exactly_three_plays() -> None:
    for text in ["60>up1 61>up1 62>up1", "50>up1 51>up1 60>up1", "60>up1 61>up1 77>up1"]:
        push(three_position(), text)
    assert_rejected(three_position(), "60>up1 61>up1", "three", None, command=True, mentions=["60", "3"])
    assert_rejected(three_position(), "60>up1 61>up1 62>up1 64>up1", "three", 4, command=True)
    assert_rejected(three_position(), "50>up1 51>up1 52>up1 60>up1", "three", 4, command=True)


def test_stop_under_three_may_only_be_the_third_card() -> None:
    assert_rejected(three_position(), "60>up1 77>up1", "stop-not-third", 2, command=True, mentions=["60"])


def stop_position() -> games.GameState:
    return solo([4, 5, 6, 8, 9, 10, 12, 13], draws=[15, 16, 17])


def test_stop_may_be_the_first_card_and_ends_the_turn() -> None:
    state = stop_position()
    assert state.observation(0)["min_plays"] == 2
    push(state, "4>up1")
    assert hand(state, 0) == [5, 6, 8, 9, 10, 12, 13, 15]
    push(stop_position(), "5>up1 4>down1")
    push(stop_position(), "5>up1 6>up1 4>down1")
    assert_rejected(stop_position(), "4>up1 5>up1", "stop", 2, command=True, mentions=["4"])
    assert_rejected(stop_position(), "5>up1", "too-few-plays", None)
    assert stop_position().legal_plays([Play(4, "up1")]) == []


def skull_position() -> games.GameState:
    return solo([7, 8, 9, 10, 32, 33, 50, 52])


def test_a_skull_must_be_covered_in_the_same_turn() -> None:
    for text in ["7>up1 8>up1", "7>up1 32>up1 33>up1", "52>down1 7>up1 8>up1", "7>up1 50>down1 9>up1"]:
        push(skull_position(), text)
    for text in ["7>up1 50>down1", "7>up1 32>up1", "7>up1 32>up2 33>up2"]:
        error = assert_rejected(skull_position(), text, "skull-uncovered", None, command=True)
        assert "up1" in str(error)


def one_pile_position() -> games.GameState:
    """down1 shows the one-pile card 46."""
    state = solo([47, 46, 52, 54, 45, 44, 57, 58], draws=[59, 61])
    push(state, "47>down1 46>down1")
    assert in_force(state) == {"down1": "one-pile"}
    return state


def test_one_pile_keeps_the_turn_on_its_first_pile() -> None:
    for text in ["52>up1 54>up1", "45>down1 52>up1", "45>down1 44>down1"]:
        push(one_pile_position(), text)
    assert_rejected(one_pile_position(), "52>up1 54>up2", "one-pile", 2, command=True, mentions=["one-pile"])
    # 45 would cover the one-pile card, but the command holds until it is covered.
    assert_rejected(one_pile_position(), "52>up1 45>down1", "one-pile", 2, command=True)
    assert Play(54, "up2") not in one_pile_position().legal_plays([Play(52, "up1")])


def test_one_pile_played_first_binds_the_rest_of_its_turn() -> None:
    state = solo([47, 46, 52, 54, 45, 44, 57, 58])
    assert_rejected(state, "46>down1 52>up1", "one-pile", 2, command=True)
    push(state, "46>down1 45>down1")
    assert in_force(state) == {}


def no_trick_position() -> games.GameState:
    """up1 shows 47 and up2 the no-trick card 18."""
    state = solo([47, 18, 37, 48, 19, 8, 38, 50], draws=[51, 52])
    push(state, "47>up1 18>up2")
    assert in_force(state) == {"up2": "no-trick"}
    return state


def test_no_trick_forbids_the_backwards_trick_on_every_pile() -> None:
    assert_rejected(no_trick_position(), "37>up1 48>up1", "no-trick", 1, command=True, mentions=["no-trick"])
    assert_rejected(no_trick_position(), "48>up1 38>up1", "no-trick", 2, command=True)
    assert_rejected(no_trick_position(), "8>up2 50>up1", "no-trick", 1, command=True)
    assert_rejected(no_trick_position(), "38>up1 48>up1", "pile-order", 1)  # not a trick at all
    push(no_trick_position(), "19>up2 37>up1")  # covered first: the trick is allowed again
    push(no_trick_position(), "48>up1 50>up1")


def test_no_trick_holds_from_the_moment_it_is_played() -> None:
    state = solo([47, 18, 37, 48, 19, 8, 38, 50])
    assert_rejected(state, "47>up1 18>up2 37>up1", "no-trick", 3, command=True)


def test_draw_one_then_refill() -> None:
    state = solo([25, 26, 27, 29, 30, 31, 33, 34], draws=[36, 37, 38, 40])
    push(state, "25>up1 27>up2")
    seen = state.observation(0)
    assert (seen["hand"], seen["draw_pile_sizes"]) == ([26, 29, 30, 31, 33, 34, 36], [89])
    push(state, "26>up1 29>up2")  # covers draw-one: back up to 8
    seen = state.observation(0)
    assert (seen["hand"], seen["draw_pile_sizes"]) == ([30, 31, 33, 34, 36, 37, 38, 40], [86])


def test_draw_one_holds_for_every_player_whatever_they_played() -> None:
    state = coop_game("extreme", [[25, 27, 2, 3, 5, 6, 8], [50, 51, 52, 54, 55, 57, 58]])
    push(state, "25>up1 27>up2")
    push(state, "58>down1 57>down1 55>down1")
    assert state.observation(0)["hand_sizes"] == [6, 5]
    assert state.observation(0)["draw_pile_sizes"] == [82]


def silence_game() -> games.GameState:
    return coop_game("extreme", [[2, 3, 5, 6, 8, 9, 10], [15, 14, 16, 17, 19, 20, 22]], draws=[40, 41, 12, 13, 43, 44])


def test_silence_clears_all_signals_and_forbids_new_ones() -> None:
    state = silence_game()
    push(state, "2>up1 3>up1 | up1=jump down1=keep-off")
    assert_rejected(state, "14>up2 15>down1 | up2=jump", "silence", None, command=True, mentions=["silence"])
    push(state, "15>up2 14>down1")
    assert in_force(state) == {"down1": "silence"}
    cleared = [dict.fromkeys(["up1", "up2", "down1", "down2"], "none")] * 2
    assert state.observation(0)["signals"] == state.observation(1)["signals"] == cleared
    assert_rejected(state, "5>up1 6>up1 | up1=jump", "silence", None, command=True)
    push(state, "5>up1 6>up1")
    push(state, "13>down1 16>up2")  # covers the silence card
    assert in_force(state) == {}
    assert state.observation(1)["signals"] == cleared, "signals cleared by silence do not come back"
    push(state, "8>up1 9>up1 | up1=keep-off")
    assert state.observation(1)["signals"][0]["up1"] == "keep-off"


def stop_only_position(last_card: int) -> games.GameState:
    """Piles end at 89, 90, 10 and 9; of the hand only `last_card` fits (on down1 or down2)."""
    state = solo([89, 90, 10, 9, 50, 51, 52, 54], draws=[55, 57, 58, last_card])
    push(state, "89>up1 90>up2 10>down1 9>down2")
    return state


def test_a_stop_card_in_hand_makes_a_one_card_turn_possible() -> None:
    state = stop_only_position(4)
    assert state.outcome is None
    push(state, "4>down1")


def test_without_it_the_same_hand_is_stuck() -> None:
    state = stop_only_position(5)
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.score, state.outcome.seat) == (Termination.STUCK, 94, 0)


def test_another_command_table_is_used_and_logged() -> None:
    table = dict(DEFAULT_COMMANDS, stop=(5, 28, 53, 77), silence=(4, 39, 63, 88))
    deck = [5, 4, 6, 8, 9, 10, 12, 13] + [card for card in range(2, 100) if card not in (5, 4, 6, 8, 9, 10, 12, 13)]
    state = games.new_game("extreme", players=1, seed="t", decks=[deck], command_table=table)
    assert state.observation(0)["commands"]["table"]["5"] == "stop"
    assert "4" not in {k for k, v in state.observation(0)["commands"]["table"].items() if v == "stop"}
    assert_rejected(state, "4>up1", "too-few-plays", None)
    push(state, "5>up1")
    log = state.log.to_json()
    logged = {name: sorted(cards) for name, cards in log["options"]["command_table"].items()}
    assert logged == {name: sorted(cards) for name, cards in table.items()}
    state.forfeit(0, Termination.TIMEOUT, "stopped by the test")
    assert games.replay(state.log.to_json()) == state.outcome
