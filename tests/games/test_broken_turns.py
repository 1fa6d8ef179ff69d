"""RULES.md section 3, [decided]: a turn that breaks any rule is rejected whole, so the score is the cards not
placed before that turn; a play that breaks a command and a basic rule at once, or a turn that ends breaking
both, is a broken command.

Default table: stop 4 28 53 77, skull 7 32 56 81, three 11 35 60 84, silence 14 39 63 88,
no-trick 18 42 67 91, one-pile 21 46 70 95, draw-one 25 49 74 98.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from conftest import assert_rejected, coop_game, parse_turn, push

import games
from games import Termination


def position() -> games.GameState:
    """Extreme, one player, after one legal turn: 96 cards not placed, up2 shows 51, the draw pile has cards.
    The hand holds 4 (stop), 11 35 (three), 14 (silence), 18 (no-trick), 21 (one-pile), 61 and 62."""
    state = coop_game("extreme", [[4, 11, 14, 18, 21, 50, 51, 61]], draws=[35, 62])
    push(state, "50>up2 51>up2")
    assert state.observation(0)["hand"] == [4, 11, 14, 18, 21, 35, 61, 62]
    assert state.cards_not_placed() == 96
    return state


# (turn, rule, play_index, the basic rule the same play or the turn's end also breaks)
DOUBLE_BREAKS = [
    # The three cases the decision names.
    ("4>up1 99>up1", "stop", 2, "99 is not in the hand"),
    ("11>up1", "three", None, "one play while the draw pile has cards"),
    ("11>up1 61>up1 62>up1 61>up1", "three", 4, "61 was already played this turn"),
    # The same decision wherever else a command and a basic rule meet.
    ("21>up1 99>down1", "one-pile", 2, "99 is not in the hand"),
    ("21>up1 61>nowhere", "one-pile", 2, "there is no pile 'nowhere'"),
    ("18>up1 8>up1", "no-trick", 2, "8 is not in the hand"),
    ("11>down1 4>up2", "stop-not-third", 2, "4 does not fit up2 showing 51"),
    ("14>up1 18>up1 61>up1 35>up1", "three", 4, "35 does not fit up1 showing 61"),
    ("14>up1 | up2=jump", "silence", None, "one play while the draw pile has cards"),
    ("14>up1 4>down1 | nowhere=jump", "silence", None, "a signal for a pile that does not exist"),
]


@pytest.mark.parametrize(("text", "rule", "play_index", "basic"), DOUBLE_BREAKS)
def test_a_turn_breaking_a_command_and_a_basic_rule_is_a_broken_command(
    text: str, rule: str, play_index: int | None, basic: str
) -> None:
    assert_rejected(position(), text, rule, play_index, command=True, names=_names(play_index))


@pytest.mark.parametrize(("text", "rule", "play_index", "basic"), DOUBLE_BREAKS)
def test_the_score_is_the_cards_not_placed_before_that_turn(
    text: str, rule: str, play_index: int | None, basic: str
) -> None:
    state = position()
    raw = parse_turn(text)
    with pytest.raises(games.CommandBroken) as caught:
        state.push(raw)
    outcome = state.reject(raw, caught.value)
    assert (outcome.termination, outcome.score, outcome.seat) == (Termination.COMMAND_BROKEN, 96, 0)
    assert all(len(history) == 1 for pile, history in state.piles.items() if pile != "up2")
    log = json.loads(json.dumps(state.log.to_json()))
    assert log["rejected_turn"]["rule"] == rule
    assert games.replay(log) == outcome


def test_each_basic_rule_alone_is_an_illegal_turn_not_a_broken_command() -> None:
    """The other half of each pair above: without the command, the same fault is a plain illegal turn."""
    assert_rejected(position(), "61>up1 99>up1", "not-in-hand", 2)
    assert_rejected(position(), "61>up1 51>up1", "not-in-hand", 2)  # the trick card, with no no-trick
    assert_rejected(position(), "61>up1", "too-few-plays", None)
    assert_rejected(position(), "61>up1 62>up1 61>up1", "played-twice", 3)
    assert_rejected(position(), "61>up1 62>nowhere", "unknown-pile", 2)
    assert_rejected(position(), "62>up1 61>up1", "pile-order", 2)
    assert_rejected(position(), "61>up1 | up2=jump", "too-few-plays", None)
    assert_rejected(position(), "61>up1 62>up1 | nowhere=jump", "unknown-pile", None)


def test_plays_after_the_first_bad_one_are_not_judged() -> None:
    """The first bad play decides: a basic fault there is an illegal turn, even if a later play would
    break a command; a command broken there is a broken command, whatever follows."""
    assert_rejected(position(), "61>up1 99>up1 4>down1 62>down1", "not-in-hand", 2)
    assert_rejected(position(), "4>up1 99>up1 61>up1", "stop", 2, command=True)


def _names(play_index: int | None) -> Sequence[str]:
    """A refused play is named by its card and pile; a turn refused as a whole names neither."""
    return ("card", "pile") if play_index is not None else ()
