"""Face to Face's single-pass path for plain legal turns agrees with the general turn check in every detail."""

import copy
import random

import games
from games.face_to_face import FaceToFaceState
from games.state import GameState


def general_push(state, turn):
    """Push through the general path only (what the fast path must be equivalent to)."""
    GameState.push(state, turn)


class GeneralOnly(FaceToFaceState):
    def push_general(self, turn):
        general_push(self, turn)


def random_turn(state, rng):
    prefix = []
    while True:
        options = state.legal_plays(prefix)
        if not options or (len(prefix) >= 2 and rng.random() < 0.4):
            break
        prefix.append(rng.choice(options))
    return [[card, pile] for card, pile in prefix]


def mutate(turn, rng):
    """Mostly-illegal variants: a changed card, a changed pile, a dropped or repeated play, odd shapes."""
    turn = copy.deepcopy(turn)
    kind = rng.randrange(7)
    if kind == 0 and turn:
        turn[rng.randrange(len(turn))][0] = rng.randrange(1, 62)
    elif kind == 1 and turn:
        turn[rng.randrange(len(turn))][1] = rng.choice(["p0.up", "p0.down", "p1.up", "p1.down", "up1"])
    elif kind == 2 and turn:
        turn.pop()
    elif kind == 3 and turn:
        turn.append(list(turn[0]))
    elif kind == 4 and turn:
        turn[0] = (turn[0][0], turn[0][1])
    elif kind == 5:
        return {"plays": turn, "signals": {}}
    elif kind == 6 and turn:
        turn[0][0] = True
    return turn


def snapshot(state):
    return (state.hands, state.tops, state.piles, state.to_move, state.outcome, state.turn_number, state.log.to_json())


def test_fast_and_general_paths_agree_on_legal_and_illegal_turns(monkeypatch):
    taken = []
    original = FaceToFaceState._push_plain
    monkeypatch.setattr(
        FaceToFaceState, "_push_plain", lambda self, t, ms: taken.append(original(self, t, ms)) or taken[-1]
    )
    rng = random.Random(5)
    compared = rejected = 0
    for game in range(150):
        fast = games.new_game("face-to-face", seed=f"fast:{game}")
        general = copy.deepcopy(fast)
        general.__class__ = GeneralOnly
        while fast.outcome is None:
            turn = random_turn(fast, rng)
            if rng.random() < 0.3:
                turn = mutate(turn, rng)
            outcomes = []
            for push in (fast.push, general.push_general):
                try:
                    push(copy.deepcopy(turn))
                    outcomes.append(None)
                except games.IllegalTurn as error:
                    outcomes.append((type(error), error.rule, error.play_index, str(error)))
            assert outcomes[0] == outcomes[1], turn
            assert snapshot(fast) == snapshot(general)
            compared += 1
            if outcomes[0] is not None:
                rejected += 1
                legal = random_turn(fast, rng)
                if not legal or not fast.can_end_turn([games.Play(c, p) for c, p in legal]):
                    break
                fast.push(copy.deepcopy(legal))
                general_push(general, copy.deepcopy(legal))
    assert compared > 3000 and rejected > 500
    assert taken.count(True) > 2000  # the fast path really carried most legal turns
