"""The cards a player cannot see, and guesses at where they are (determinizations).

What the mover of a turn knows is everything public (the piles, every play so far, hand and draw pile sizes) and its
own hand. It does not know the order of any draw pile, nor the other players' hands. In Face to Face it knows which
cards are in its own draw pile and which the opponent has not played yet (each player owns cards 2..59); in the co-op
games the cards not placed and not in its hand are somewhere in the partners' hands or the draw pile.

A determinization deals those unknown cards at random, consistently with all that: the same hand sizes, each card
where it could be. The deal comes from `games.shuffle` (a specified SHAKE-256 shuffle), so a seed gives the same
guesses on every machine and Python version. The pools are sorted before shuffling, so a guess never depends on
where the cards really are.
"""

from __future__ import annotations

from games import FACE_TO_FACE, GameState
from games.shuffle import shuffled


def hidden_layout(state: GameState, mover: int, seed: str) -> tuple[list[list[int]], list[list[int]]]:
    """(hands, draw piles in draw order) of one guess at the cards `mover` cannot see, for `state.with_hidden_cards`.

    The mover's hand stays as it is; everything else it cannot see is dealt from `seed`."""
    if state.game_id == FACE_TO_FACE:
        return _face_to_face_layout(state, mover, seed)
    return _coop_layout(state, mover, seed)


def determinize(state: GameState, mover: int, seed: str) -> GameState:
    """A copy of `state` with the cards `mover` cannot see dealt at random from `seed`."""
    hands, draw_piles = hidden_layout(state, mover, seed)
    return state.with_hidden_cards(hands, draw_piles)


def _face_to_face_layout(state: GameState, mover: int, seed: str) -> tuple[list[list[int]], list[list[int]]]:
    other = 1 - mover
    own_draw = shuffled(sorted(state.draw_piles_reversed[mover]), seed, "own-draw")
    theirs = shuffled(sorted(state.hands[other] + state.draw_piles_reversed[other]), seed, "opponent")
    held = len(state.hands[other])
    hands: list[list[int]] = [[], []]
    draw_piles: list[list[int]] = [[], []]
    hands[mover], draw_piles[mover] = list(state.hands[mover]), own_draw
    hands[other], draw_piles[other] = theirs[:held], theirs[held:]
    return hands, draw_piles


def _coop_layout(state: GameState, mover: int, seed: str) -> tuple[list[list[int]], list[list[int]]]:
    unseen = [card for seat, hand in enumerate(state.hands) if seat != mover for card in hand]
    unseen += state.draw_pile_reversed
    dealt = shuffled(sorted(unseen), seed, "unseen")
    hands = []
    for seat, hand in enumerate(state.hands):
        if seat == mover:
            hands.append(list(hand))
        else:
            hands.append(dealt[: len(hand)])
            dealt = dealt[len(hand) :]
    return hands, [dealt]
