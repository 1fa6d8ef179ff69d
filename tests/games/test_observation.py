"""What a seat sees (docs/engine-api.md, Observation): the documented fields, nothing hidden, and a copy."""

from __future__ import annotations

import json

import pytest
from conftest import check_no_leak, coop_game, f2f_game, push

import games

FIELDS = {
    "game", "players", "seat", "to_move", "turn", "hand", "hand_sizes", "hand_size",
    "draw_pile_sizes", "min_plays", "piles", "signals", "commands",
}  # fmt: skip


@pytest.mark.parametrize(
    "game, players, piles",
    [
        ("face-to-face", 2, {"p0.up": (1, "up", 0), "p0.down": (60, "down", 0),
                             "p1.up": (1, "up", 1), "p1.down": (60, "down", 1)}),
        ("the-game", 4, {"up1": (1, "up", None), "up2": (1, "up", None),
                         "down1": (100, "down", None), "down2": (100, "down", None)}),
        ("extreme", 1, {"up1": (1, "up", None), "up2": (1, "up", None),
                        "down1": (100, "down", None), "down2": (100, "down", None)}),
    ],
)  # fmt: skip
def test_a_new_games_observation(game: str, players: int, piles: dict) -> None:
    state = games.new_game(game, players=players, seed=3)
    for seat in range(players):
        seen = state.observation(seat)
        assert FIELDS <= set(seen)
        assert json.loads(json.dumps(seen)) == seen
        assert (seen["game"], seen["players"], seen["seat"], seen["turn"]) == (game, players, seat, 0)
        assert seen["to_move"] == state.to_move
        assert {pile: (info["top"], info["direction"], info["owner"]) for pile, info in seen["piles"].items()} == piles
        assert all(info["history"] == [info["top"]] for info in seen["piles"].values())
        assert seen["min_plays"] == 2
        assert len(seen["hand"]) == seen["hand_size"] == seen["hand_sizes"][seat]
        check_no_leak(seen)
    face = game == "face-to-face"
    seen = state.observation(0)
    assert seen["draw_pile_sizes"] == ([52, 52] if face else [98 - players * seen["hand_size"]])
    assert (seen["signals"] == []) if face else len(seen["signals"]) == players
    assert (seen["commands"] is not None) == (game == "extreme")


def test_turn_counts_up_and_the_game_end_shows() -> None:
    state = coop_game("the-game", [[99, 98, 2, 3, 50, 51, 52, 54]], draws=[55, 56, 57, 58])
    assert state.observation(0)["turn"] == 0
    push(state, "99>up1 98>up2 2>down1 3>down2")  # and nothing fits any more
    seen = state.observation(0)
    assert seen["turn"] == 1
    assert seen["to_move"] is None and state.to_move is None


def test_no_seat_sees_another_hand_or_a_draw_pile() -> None:
    state = coop_game("the-game", [[2, 3, 4, 5, 6, 8, 9], [90, 91, 92, 93, 94, 95, 96]], draws=[40, 41])
    push(state, "2>up1 3>up1")
    assert state.observation(0)["hand"] == [4, 5, 6, 8, 9, 40, 41]
    assert state.observation(1)["hand"] == [90, 91, 92, 93, 94, 95, 96]
    for seat in (0, 1):
        check_no_leak(state.observation(seat))  # neither the other hand nor the 82 cards still to draw


def test_an_observation_is_a_copy() -> None:
    state = f2f_game([10, 20, 30, 40, 50, 59], [2, 3, 4, 5, 6, 7])
    seen = state.observation(0)
    seen["hand"].clear()
    seen["piles"]["p0.up"]["history"].append(99)
    seen["hand_sizes"][0] = 0
    fresh = state.observation(0)
    assert fresh["hand"] == [10, 20, 30, 40, 50, 59]
    assert fresh["piles"]["p0.up"]["history"] == [1]
    push(state, "10>p0.up 20>p0.up")
