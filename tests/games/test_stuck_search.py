"""The quick "can the mover play at all?" tests agree with the exhaustive search over ordered plays."""

import random

import pytest

import games


def random_positions(game, players, count, seed):
    """Positions reached by random legal play, including near-stuck ones late in a game."""
    rng = random.Random(seed)
    for index in range(count):
        state = games.new_game(game, players, f"positions:{seed}:{index}")
        while state.outcome is None:
            yield state
            prefix = []
            while True:
                options = state.legal_plays(prefix)
                if not options or (prefix and state.can_end_turn(prefix) and rng.random() < 0.5):
                    break
                prefix.append(rng.choice(options))
            if state.can_end_turn(prefix):
                state.push(games.Turn(tuple(prefix)))
            else:
                break


def test_face_to_face_quick_test_matches_the_search():
    checked = 0
    for state in random_positions("face-to-face", 2, 150, 1):
        for seat in (0, 1):
            if state.hands[seat]:
                assert state._can_move(seat) == state.builder_for(seat).can_complete(), (seat, state.tops, state.hands)
                checked += 1
    assert checked > 3000


def test_face_to_face_quick_test_on_constructed_trick_chain():
    # Own ascending 33 after plays; hand 34 and 24: only 34 fits now, and it makes 24 fit by the trick.
    state = games.new_game("face-to-face", seed=0, start_seat=0)
    state.tops["p0.up"], state.tops["p0.down"] = 33, 20
    state.tops["p1.up"], state.tops["p1.down"] = 2, 59
    state.hands[0] = [34, 24, 25]
    assert state._can_move(0) and state.builder_for(0).can_complete()
    state.hands[0] = [34, 25, 26]
    assert not state._can_move(0) and not state.builder_for(0).can_complete()


@pytest.mark.parametrize("players", [1, 3])
def test_the_game_quick_test_never_claims_a_turn_the_search_cannot_find(players):
    checked = 0
    for state in random_positions("the-game", players, 60, 2):
        seat = state.to_move
        if state._plain_turn_exists(state.hands[seat]):
            assert state.builder().can_complete()
            checked += 1
    assert checked > 200
