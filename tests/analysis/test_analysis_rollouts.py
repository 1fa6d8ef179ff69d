"""Rollouts with common random numbers: every candidate meets the same guesses, the same seed gives the same samples,
and sampling stops at the precision asked for."""

import math

import pytest

import games
from bots.analysis.policy import expert_turn
from bots.analysis.rollouts import Precision, estimate
from bots.house import load_house_bot


def position(turns=6, game="face-to-face", players=None):
    state = games.new_game(game, players, "rollouts", start_seat=0 if game == "face-to-face" else None)
    bot = load_house_bot("greedy")
    for _ in range(turns):
        state.push(bot.play(state.observation(state.to_move)))
    return state


def test_the_same_turn_twice_gets_the_same_values_and_no_drop_error():
    state = position()
    turn = expert_turn(state)
    samples = estimate(state, state.to_move, [turn, turn], "s", Precision(max_samples=8, min_samples=8))
    assert samples.count == 8 and samples.wins[0] == samples.wins[1]
    assert samples.win_drop_stderr(0, 1) == 0.0


def test_the_same_seed_gives_the_same_samples_and_another_seed_others():
    state = position()
    turns = [expert_turn(state), games.Turn.from_json(load_house_bot("greedy").play(state.observation(state.to_move)))]
    precision = Precision(max_samples=8, min_samples=8)
    first = estimate(state, state.to_move, turns, "a", precision)
    assert estimate(state, state.to_move, turns, "a", precision).wins == first.wins
    assert estimate(state, state.to_move, turns, "b", precision).wins != first.wins


def test_sampling_stops_once_precise_and_never_past_the_maximum():
    state = position(turns=10)
    turn = expert_turn(state)
    loose = estimate(state, state.to_move, [turn], "s", Precision(max_samples=64, min_samples=4, target=1.0))
    assert loose.count == 4
    strict = estimate(state, state.to_move, [turn], "s", Precision(max_samples=20, min_samples=4, target=0.0))
    assert strict.count == 20
    assert all(0.0 <= value <= 1.0 for value in strict.wins[0])


def test_a_winning_turn_is_worth_exactly_one():
    state = position(turns=0)
    bot = load_house_bot("expert")
    while state.outcome is None:
        turn = games.Turn.from_json(bot.play(state.observation(state.to_move)))
        after = state.with_hidden_cards(
            [list(hand) for hand in state.hands], [pile[::-1] for pile in state.draw_piles_reversed]
        )
        after.push(turn)
        if after.outcome is not None:
            samples = estimate(state, state.to_move, [turn], "s", Precision(max_samples=4, min_samples=4))
            won = after.outcome.winner == state.to_move
            assert samples.wins[0] == [1.0 if won else 0.0] * 4 and samples.win_stderr(0) == 0.0
            return
        state.push(turn)


@pytest.mark.parametrize("game,players", [("the-game", 2), ("face-to-face", None)])
def test_samples_carry_the_cards_left(game, players):
    state = position(turns=5, game=game, players=players)
    samples = estimate(state, state.to_move, [expert_turn(state)], "s", Precision(max_samples=6, min_samples=6))
    assert len(samples.cards[0]) == 6
    held = state.cards_not_placed()
    if game == "face-to-face":  # the mover's own cards only
        held = len(state.hands[state.to_move]) + len(state.draw_piles_reversed[state.to_move])
    assert all(0 <= cards <= held for cards in samples.cards[0]) and max(samples.cards[0]) > 0
    assert not math.isinf(samples.cards_stderr(0))
