"""Face to Face: a card equal to the top can never go on a player's own pile (RULES.md section 1: higher, or
exactly 10 lower, on ascending; lower, or exactly 10 higher, on descending). Both players own the cards
2..59, so after the opponent puts its copy of a card on one's pile, one may hold the same number."""

from __future__ import annotations

import random

import pytest
from conftest import assert_rejected, f2f_game, hand, mirror_of, push, top
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_oracle import F2F_CARDS, F2F_PILES, Policy, owner

import games
from games import Play
from games.face_to_face import FaceToFaceTurn

START_TOPS = {"p0.up": 1, "p0.down": 60, "p1.up": 1, "p1.down": 60}


@pytest.mark.parametrize(
    ("hand0", "hand1", "first", "opponent", "pile"),
    [
        # Seat 0 raises its ascending pile to 40; seat 1 puts its own 30 there (lower is how one helps).
        ([40, 30, 45, 46, 47, 48], [30, 50, 51, 52, 53, 54], "40>p0.up 48>p0.down", "30>p0.up 50>p1.up", "p0.up"),
        # Seat 0 lowers its descending pile to 20; seat 1 puts its own 35 there.
        ([20, 35, 45, 46, 47, 48], [35, 50, 51, 52, 53, 54], "20>p0.down 45>p0.up", "35>p0.down 50>p1.up", "p0.down"),
    ],
)
def test_the_opponents_copy_on_top_of_ones_pile_cannot_be_matched(
    hand0: list[int], hand1: list[int], first: str, opponent: str, pile: str
) -> None:
    state = f2f_game(hand0, hand1)
    push(state, first, opponent)
    card = top(state, pile)
    assert state.to_move == 0 and card in hand(state, 0), "seat 0 holds its own copy of the card on top"
    assert Play(card, pile) not in state.legal_plays()
    follow_up = 46 if pile == "p0.up" else 47  # legal after the refused play would have been made
    assert_rejected(state, f"{card}>{pile} {follow_up}>{pile}", "pile-order", 1, mentions=[f"showing {card}"])


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("pile", ["up", "down"])
@pytest.mark.parametrize("opponent_played", [False, True])
def test_no_top_of_ones_own_pile_accepts_the_same_number(seat: int, pile: str, opponent_played: bool) -> None:
    """Every card that can be on top of an own pile, with that number in hand, before or after the turn's
    opponent-pile play: the play is refused by the pile rule."""
    own, opponent_up = f"p{seat}.{pile}", f"p{1 - seat}.up"
    for card in F2F_CARDS:
        other = 2 if card != 2 else 3  # a card the opponent's ascending pile showing 59 takes
        turn = FaceToFaceTurn(seat, dict(START_TOPS, **{own: card, opponent_up: 59}), [card, other], min_plays=2)
        if opponent_played:
            turn.add(Play(other, opponent_up))
        assert turn.reason(card, own) == "pile-order", f"{card} on {own} showing {card}"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), rng=st.integers(0, 2**32).map(random.Random), care=st.sampled_from([0.0, 0.5]))
def test_in_random_games_no_legal_play_matches_the_top_of_an_own_pile(
    seed: int, rng: random.Random, care: float
) -> None:
    """At every step of every turn of random games (whose careless players often help the opponent), the
    engine offers no play of a card on the mover's own pile showing that same number."""
    state = games.new_game("face-to-face", seed=seed)
    mirror = mirror_of(state)
    policy = Policy(rng, care=care)
    while state.outcome is None and not mirror.uncertain:
        mover = state.to_move
        plays, _ = policy.turn(mirror)
        for length in range(len(plays) + 1):
            tops = dict(mirror.tops())
            tops.update({pile: card for card, pile in plays[:length]})
            for play in state.legal_plays([Play(*done) for done in plays[:length]]):
                if owner(play.pile) == mover:
                    assert play.card != tops[play.pile], f"{play} offered on {play.pile} showing {play.card}"
        state.push({"plays": [list(play) for play in plays]})
        mirror.apply(plays)
    for pile in F2F_PILES:
        history = state.observation(0)["piles"][pile]["history"]
        assert all(below != above for below, above in zip(history, history[1:], strict=False))
