"""Same seed, same deal, on every machine and Python version.

The deal is specified in docs/game-log.md (section Shuffle) so that anyone can re-deal a logged seed.
`documented_deal` below is written from that text alone; the golden values pin a few seeds' decks.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games

REPO = Path(__file__).resolve().parents[2]

# Golden values, taken once from the engine. They guard against an accidental change of the shuffle:
# if one fails, every logged seed in the world now deals differently. Change them only together with
# a new log version and the shuffle's documentation.
# (game, players, seed, start seat, first 12 cards of each deck, sha256 of json.dumps(decks))
GOLDEN = [
    ("face-to-face", 2, 42, 1,
     [[52, 33, 28, 47, 58, 44, 19, 11, 7, 10, 15, 34], [18, 13, 24, 29, 4, 49, 7, 36, 38, 35, 59, 27]],
     "84fd90526eae364a89cf87d73b415043fd6ef9debf931b270bddd462bfbb942f"),
    ("face-to-face", 2, "match-7:game-3", 1,
     [[35, 29, 31, 20, 48, 2, 54, 26, 22, 14, 46, 57], [46, 16, 31, 17, 28, 44, 10, 22, 12, 59, 34, 52]],
     "280fcf229ba2a62e6edf3e66f773b0f3cc0ea299ec7898f2067b79106f55d863"),
    ("the-game", 3, 42, 2, [[7, 76, 83, 50, 29, 49, 17, 26, 6, 43, 70, 25]],
     "7ac7b9224014198d916efaee1836b6ed18bf1d8c9bef27f214e423b571bcb8fe"),
    ("extreme", 1, "league:2024-06-01:17", 0, [[55, 37, 20, 56, 3, 6, 84, 16, 42, 92, 34, 60]],
     "6e6c8f3ec8efb26780117dbb2c771099d3a5a7d9108544eebcf8af6b691fe67b"),
    ("the-game", 5, "Ωμέγα", 4, [[75, 34, 91, 70, 78, 4, 32, 30, 58, 87, 44, 92]],
     "b95d1894d6a734f813aa819061e4111e483607520d31641ee482cce456d9788e"),
]  # fmt: skip


def words(seed: str, label: str, count: int) -> tuple[int, ...]:
    stream = hashlib.shake_256(f"thegame-arena/v1|{label}|{seed}".encode()).digest(8 * count)
    return struct.unpack(f"<{count}Q", stream)


def documented_deal(game: str, players: int, seed: str) -> tuple[int, list[list[int]]]:
    """(start seat, decks) as docs/game-log.md specifies them."""
    if game == "face-to-face":
        labels, cards = ["deck0", "deck1"], list(range(2, 60))
    else:
        labels, cards = ["deck"], list(range(2, 100))
    decks = []
    for label in labels:
        keys = words(seed, label, len(cards))
        decks.append([card for _, _, card in sorted(zip(keys, range(len(cards)), cards, strict=True))])
    start = (words(seed, "start", 1)[0] * players) >> 64
    return start, decks


def deal(game: str, players: int, seed: Any) -> tuple[int, list[list[int]]]:
    log = games.new_game(game, players=players, seed=seed).log.to_json()
    return log["start_seat"], log["decks"]


@pytest.mark.parametrize("game, players, seed, start, heads, digest", GOLDEN)
def test_golden_deals(game: str, players: int, seed: Any, start: int, heads: list[list[int]], digest: str) -> None:
    start_seat, decks = deal(game, players, seed)
    assert start_seat == start
    assert [deck[:12] for deck in decks] == heads
    assert hashlib.sha256(json.dumps(decks).encode()).hexdigest() == digest


@settings(max_examples=30, deadline=None)
@given(
    game=st.sampled_from(["face-to-face", "the-game", "extreme"]),
    players=st.integers(1, 5),
    seed=st.one_of(st.integers(0, 2**64), st.text(max_size=20)),
)
def test_the_deal_is_the_documented_one(game: str, players: int, seed: Any) -> None:
    players = 2 if game == "face-to-face" else players
    state = games.new_game(game, players=players, seed=seed)
    log = state.log.to_json()
    assert log["seed"] == str(seed)
    assert (log["start_seat"], log["decks"]) == documented_deal(game, players, str(seed))
    assert state.to_move == log["start_seat"]


def test_an_integer_seed_deals_as_its_text() -> None:
    assert deal("the-game", 2, 1234) == deal("the-game", 2, "1234")


def test_different_seeds_deal_differently() -> None:
    decks = {json.dumps(deal("the-game", 1, seed)[1]) for seed in range(20)}
    assert len(decks) == 20
    face = deal("face-to-face", 2, 1)[1]
    assert face[0] != face[1], "each Face to Face deck has its own shuffle"


def test_a_chosen_start_seat_replaces_the_lot() -> None:
    for seat in range(4):
        assert games.new_game("the-game", players=4, seed=42, start_seat=seat).to_move == seat
    with pytest.raises(ValueError, match="seat"):
        games.new_game("the-game", players=4, seed=42, start_seat=4)


def test_the_deal_does_not_depend_on_hash_randomisation() -> None:
    script = (
        "import json, games\n"
        "print(json.dumps([games.new_game(g, players=p, seed=s).log.to_json()['decks']"
        " for g, p, s in [('face-to-face', 2, 42), ('extreme', 1, 'league:2024-06-01:17')]]))"
    )
    outputs = set()
    for hash_seed in ("0", "1", "random"):
        environment = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=REPO, env=environment, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    decks = json.loads(outputs.pop())
    assert hashlib.sha256(json.dumps(decks[0]).encode()).hexdigest() == GOLDEN[0][5]
    assert hashlib.sha256(json.dumps(decks[1]).encode()).hexdigest() == GOLDEN[3][5]
