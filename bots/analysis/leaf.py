"""Where a rollout stops: the value of a position, exact once the game is over, else from a fitted model.

Rollouts play on with the expert for a few turns (the horizon) and then ask this module what the position is worth.
Playing every rollout to the end would cost the whole game's worth of expert turns per sample, a hundred times the
analysis's time budget; the model stands in for the rest of the game instead. It is fitted to the outcomes of
expert-vs-expert play from positions of every quality (`bots/analysis/training.py`, weights in `leaf_models.json`):

- Face to Face: the probability that `seat` wins (logistic) and the cards it is expected to hold still when it loses
  (0 when it wins, as a co-op team's score: the chance of losing times a linear model of the cards held at a loss; a
  seat that wins because the other is stuck holds cards too, but they cost it nothing), over the difference between
  the two players of what the expert's own scoring looks at (cards left, how many fit one, both or neither of the own
  piles, and of those fitting neither, how many could still go on the opponent's piles; playable cards in hand, room
  between the piles; the dead cards' share and excess over the turns left, the crowding of a single pile), and whose
  turn it is, each also weighted by how far the game has gone, and the same numbers summed over both players and
  signed by whose turn it is.
- The Game and Extreme: the team's probability of winning (logistic) and the expected cards left (linear), over the
  cards not placed, how many piles each of them still fits, the expert's reach risk and crowding of the piles, the
  draw pile, and in Extreme the lasting commands on top. One model per game and player count.

The features are plain numbers computed from a full position (a rollout's guess is one): the models see nothing a
player could not see at the end of the rollout that the rollout itself did not deal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bots.house import expert_coop
from bots.house.expert_face_to_face import list_fits, position_cost
from games import FACE_TO_FACE, GameState
from games.commands import INFINITY

MODELS_FILE = Path(__file__).with_name("leaf_models.json")

FACE_TO_FACE_SIDE = (
    "cards_left",
    "position_cost",
    "dumpable",
    "undumpable",
    "one_pile",
    "playable",
    "hand",
    "room",
    "draw_pile",
    "short",
    "dead",
    "dead_beyond_turns",
    "fit_both",
    "fit_fewer",
    "crowding",
    "dead_share",
)
FACE_TO_FACE_FEATURES = (
    "bias",
    "to_move",
    *(f"{name}_diff" for name in FACE_TO_FACE_SIDE),
    *(f"{name}_diff_late" for name in FACE_TO_FACE_SIDE),
    "to_move_late",
    *(f"{name}_sum_to_move" for name in FACE_TO_FACE_SIDE),
)
COOP_FEATURES = (
    "bias",
    "cards_left",
    "fit_none",
    "fit_one",
    "fit_two",
    "reach_risk",
    "crowding",
    "room",
    "draw_pile",
    "fit_none_early",
    "reach_risk_early",
    "stuck_soon",
    *(f"in_force_{command}" for command in INFINITY),
)


@dataclass(frozen=True)
class Leaf:
    """A position's value: `win` the probability of winning (the seat's in Face to Face, the team's in the co-op
    games); `cards` the expected cards left at the end, counted as 0 after a win (in Face to Face the seat's own hand
    and draw pile when it loses, in the co-op games the team's cards not placed)."""

    win: float
    cards: float


def leaf_value(state: GameState, seat: int) -> Leaf:
    """The value of `state` for `seat` (Face to Face) or its team: exact when the game is over."""
    outcome = state.outcome
    if state.game_id == FACE_TO_FACE:
        own_cards = len(state.hands[seat]) + len(state.draw_piles_reversed[seat])
        if outcome is not None:
            won = outcome.winner == seat
            return Leaf(1.0 if won else 0.0, 0.0 if won else float(own_cards))
        model = model_for(state.game_id, 2)
        features = face_to_face_features(state, seat)
        win = _logistic(model.win, features)
        cards_if_lost = min(float(own_cards), max(0.0, _dot(model.cards, features)))
        return Leaf(win, (1.0 - win) * cards_if_lost)
    if outcome is not None:
        return Leaf(1.0 if outcome.score == 0 else 0.0, float(outcome.score))
    model = model_for(state.game_id, state.players)
    features = coop_features(state)
    cards_left = state.cards_not_placed()
    cards = min(float(cards_left), max(0.0, _dot(model.cards, features)))
    return Leaf(_logistic(model.win, features), cards)


# -- Face to Face ------------------------------------------------------------------------------------------------


def face_to_face_features(state: GameState, seat: int) -> list[float]:
    """The Face to Face features of `state`, from `seat`'s side (see FACE_TO_FACE_FEATURES)."""
    mine = _side(state, seat)
    theirs = _side(state, 1 - seat)
    late = 1.0 - (mine[0] + theirs[0]) / 116
    to_move = 1.0 if state.to_move == seat else -1.0
    diffs = [a - b for a, b in zip(mine, theirs, strict=True)]
    # Both players' sums, signed by whose turn it is: how the same trouble weighs on the player to move and on the
    # other (the differences alone cannot tell two crowded positions from two easy ones).
    sums = [(a + b) * to_move for a, b in zip(mine, theirs, strict=True)]
    return [1.0, to_move, *diffs, *(diff * late for diff in diffs), to_move * late, *sums]


def _side(state: GameState, seat: int) -> tuple[float, ...]:
    """One player's numbers, in FACE_TO_FACE_SIDE order."""
    tops = state.tops
    up, down = tops[f"p{seat}.up"], tops[f"p{seat}.down"]
    their_up, their_down = tops[f"p{1 - seat}.up"], tops[f"p{1 - seat}.down"]
    hand = state.hands[seat]
    draw_pile = state.draw_piles_reversed[seat]
    remaining = hand + draw_pile
    fit_up, fit_down, fit_both, total = list_fits(remaining, up, down)
    trick_up, trick_down = up - 10, down + 10
    dumpable = undumpable = 0
    for card in remaining:
        if not (card > up or card < down or card == trick_up or card == trick_down):
            if card < their_up or card > their_down:
                dumpable += 1
            else:
                undumpable += 1
    playable = sum(1 for card in hand if card > up or card < down or card == trick_up or card == trick_down)
    dead = total - fit_up - fit_down + fit_both  # fits neither own pile: one a turn may go on the opponent's
    only_up, only_down = fit_up - fit_both, fit_down - fit_both
    return (
        total,
        position_cost(fit_up, fit_down, fit_both, total),
        dumpable,
        undumpable,
        only_up + only_down,
        playable,
        len(hand),
        max(0, down - up),
        len(draw_pile),
        max(0, 2 - playable),
        dead,
        max(0.0, dead - total / 3),  # more dead cards than the turns left can shed (about 3 cards a turn)
        fit_both,
        min(fit_up, fit_down),
        (only_up * only_up + only_down * only_down) / 10,
        dead / total if total else 0.0,
    )


# -- The Game and Extreme ----------------------------------------------------------------------------------------


def coop_features(state: GameState) -> list[float]:
    """The co-op features of `state` (see COOP_FEATURES)."""
    tops = state.tops
    not_placed = [card for hand in state.hands for card in hand] + state.draw_pile_reversed
    ups = [top for pile, top in tops.items() if pile.startswith("up")]
    downs = [top for pile, top in tops.items() if pile.startswith("down")]
    fits = [0] * 5
    for card in not_placed:
        fits[sum(card > top for top in ups) + sum(card < top for top in downs)] += 1
    planner = expert_coop.Planner(state.observation(state.to_move), expert_coop.THE_GAME_TUNING)
    pile_tops = tuple(tops[name] for name in planner.names)
    reach = planner.reach_risk(pile_tops, ())
    crowding = planner.crowding(pile_tops, ()) / 100
    room = sum(max(0, down - up) for up in ups for down in downs) / 40
    early = len(not_placed) / 98
    hand = state.hands[state.to_move]
    playable = sum(1 for card in hand if any(card > top for top in ups) or any(card < top for top in downs))
    in_force = set(state.table.get(top) for top in tops.values()) if state.table else set()
    return [
        1.0,
        len(not_placed),
        fits[0],
        fits[1],
        fits[2],
        reach,
        crowding,
        room,
        len(state.draw_pile_reversed) / 10,
        fits[0] * early,
        reach * early,
        max(0, state.min_plays() - playable),
        *(1.0 if command in in_force else 0.0 for command in INFINITY),
    ]


# -- the fitted models -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeafModel:
    """Fitted weights over a feature list: `win` (logistic) and `cards` (linear)."""

    features: tuple[str, ...]
    win: tuple[float, ...]
    cards: tuple[float, ...]


def model_key(game: str, players: int) -> str:
    return FACE_TO_FACE if game == FACE_TO_FACE else f"{game}/{players}"


@cache
def _models() -> dict[str, LeafModel]:
    data = json.loads(MODELS_FILE.read_text(encoding="utf-8"))
    return {
        key: LeafModel(
            tuple(entry["features"]),
            tuple(entry["win"]),
            tuple(entry["cards"]),
        )
        for key, entry in data["models"].items()
    }


def model_for(game: str, players: int) -> LeafModel:
    """The model for `game` with `players` seats; a co-op count without its own model borrows the nearest one."""
    models = _models()
    key = model_key(game, players)
    if key in models:
        return models[key]
    counts = sorted(int(name.split("/")[1]) for name in models if name.startswith(f"{game}/"))
    if not counts:
        raise LookupError(f"no leaf model for {game}")
    nearest = min(counts, key=lambda count: (abs(count - players), count))
    return models[model_key(game, nearest)]


def expected_features(game: str) -> tuple[str, ...]:
    return FACE_TO_FACE_FEATURES if game == FACE_TO_FACE else COOP_FEATURES


def _dot(weights: Sequence[float], features: Sequence[float]) -> float:
    return math.fsum(w * x for w, x in zip(weights, features, strict=True))


def _logistic(weights: Sequence[float], features: Sequence[float]) -> float:
    z = _dot(weights, features)
    if z < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))
