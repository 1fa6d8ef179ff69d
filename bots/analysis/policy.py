"""The house expert as the analysis's engine: its turn in a real position, and in the guessed positions of rollouts.

The expert is used as it is (bots/house/expert_*.py), never copied: Face to Face through the expert's `View` built
straight from what a player who saw the whole game knows (no observation dict to build and parse, thousands of times
per analysis), the co-op games through the expert's `play` with a tuning that has no clock, so that the same position
always gets the same turn (the bot's own 100 ms cut-off depends on the machine's load).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from bots.house import expert_coop, expert_face_to_face
from games import EXTREME, FACE_TO_FACE, GameState, Turn

# The co-op expert's own search budget, without its clock: reproducible, and as strong as on an idle machine.
COOP_TUNING = {
    "the-game": dataclasses.replace(expert_coop.THE_GAME_TUNING, time_limit=math.inf),
    EXTREME: dataclasses.replace(expert_coop.EXTREME_TUNING, time_limit=math.inf),
}


def expert_turn(state: GameState) -> Turn:
    """The expert's turn for the player to move in `state`, seeing only what that player may see."""
    return Turn.from_json(expert_turn_json(state))


def expert_turn_json(state: GameState) -> Any:
    """`expert_turn` in the JSON form `GameState.push` takes fastest (rollouts push thousands of these)."""
    seat = state.to_move
    if state.game_id == FACE_TO_FACE:
        other = 1 - seat
        view = expert_face_to_face.View.of_position(
            seat,
            state.tops,
            state.hands[seat],
            state.draw_piles_reversed[seat],
            state.hands[other] + state.draw_piles_reversed[other],
            len(state.draw_piles_reversed[other]),
        )
        return [[card, view.pile_ids[pile]] for card, pile in expert_face_to_face.best_turn(view)]
    return expert_coop.play(state.observation(seat), COOP_TUNING[state.game_id])
