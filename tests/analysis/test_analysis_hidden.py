"""Determinizations deal only what the mover cannot see, keep everything it can, and never depend on where the hidden
cards really are."""

import pytest

import games
from bots.analysis.hidden import determinize, hidden_layout
from bots.house import load_house_bot


def position(game, players, turns, seed="hidden"):
    state = games.new_game(game, players, seed, start_seat=0 if game == "face-to-face" else None)
    bot = load_house_bot("greedy")
    for _ in range(turns):
        state.push(bot.play(state.observation(state.to_move)))
    return state


def shuffled_truth(state, mover):
    """The same position with the cards the mover cannot see arranged otherwise (reversed)."""
    if state.game_id == "face-to-face":
        other = 1 - mover
        pool = state.hands[other] + state.draw_piles_reversed[other]
        pool.reverse()
        hands, draws = [None, None], [None, None]
        hands[mover], draws[mover] = state.hands[mover], state.draw_piles_reversed[mover]  # own draw order reversed
        held = len(state.hands[other])
        hands[other], draws[other] = pool[:held], pool[held:]
        return state.with_hidden_cards(hands, draws)
    pool = [card for seat, hand in enumerate(state.hands) if seat != mover for card in hand] + state.draw_pile_reversed
    pool.reverse()
    hands = []
    for seat, hand in enumerate(state.hands):
        if seat == mover:
            hands.append(hand)
        else:
            hands.append(pool[: len(hand)])
            pool = pool[len(hand) :]
    return state.with_hidden_cards(hands, [pool])


def test_face_to_face_keeps_the_movers_hand_and_each_seats_cards():
    state = position("face-to-face", None, 7)
    mover, other = state.to_move, 1 - state.to_move
    guess = determinize(state, mover, "s:1")
    assert guess.hands[mover] == state.hands[mover]
    assert sorted(guess.draw_piles_reversed[mover]) == sorted(state.draw_piles_reversed[mover])
    assert len(guess.hands[other]) == len(state.hands[other])
    assert sorted(guess.hands[other] + guess.draw_piles_reversed[other]) == sorted(
        state.hands[other] + state.draw_piles_reversed[other]
    )
    assert guess.tops == state.tops and guess.piles == state.piles and guess.to_move == mover


@pytest.mark.parametrize("game,players", [("the-game", 1), ("the-game", 4), ("extreme", 3)])
def test_coop_keeps_the_movers_hand_and_the_cards_not_placed(game, players):
    state = position(game, players, 6)
    mover = state.to_move
    guess = determinize(state, mover, "s:1")
    assert guess.hands[mover] == state.hands[mover]
    assert [len(hand) for hand in guess.hands] == [len(hand) for hand in state.hands]
    assert len(guess.draw_pile_reversed) == len(state.draw_pile_reversed)
    assert guess.cards_not_placed() == state.cards_not_placed()


@pytest.mark.parametrize("game,players", [("face-to-face", None), ("the-game", 3), ("extreme", 2)])
def test_a_guess_depends_on_the_seed_and_what_is_known_never_on_the_hidden_truth(game, players):
    state = position(game, players, 8)
    mover = state.to_move
    other_truth = shuffled_truth(state, mover)
    assert hidden_layout(state, mover, "s:3") == hidden_layout(other_truth, mover, "s:3")
    assert hidden_layout(state, mover, "s:3") == hidden_layout(state, mover, "s:3")
    assert hidden_layout(state, mover, "s:3") != hidden_layout(state, mover, "s:4")


def test_an_empty_opponent_draw_pile_leaves_their_hand_known():
    state = position("face-to-face", None, 0)
    bot = load_house_bot("greedy")
    while state.outcome is None and (state.draw_piles_reversed[0] or state.draw_piles_reversed[1]):
        state.push(bot.play(state.observation(state.to_move)))
    if state.outcome is None:
        mover = state.to_move
        guess = determinize(state, mover, "s:9")
        assert sorted(guess.hands[1 - mover]) == sorted(state.hands[1 - mover])
