"""Helpers for the engine tests: build exact positions from chosen decks, push turns written in the
text form (``17>p0.up 7>p0.up | up1=jump``), and check rejections leave the game untouched."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from rules_oracle import (
    COOP_CARDS,
    COOP_HAND_SIZES,
    DEFAULT_TABLE,
    EXTREME,
    F2F_CARDS,
    F2F_PILES,
    FACE_TO_FACE,
    MirrorGame,
    Rules,
)

import games


def full_deck(first: Sequence[int], cards: range) -> list[int]:
    """`first` in that order, then every other card of `cards` in ascending order."""
    assert len(set(first)) == len(first), f"repeated cards in {first}"
    assert set(first) <= set(cards), f"{sorted(set(first) - set(cards))} are not cards of {cards}"
    rest = [card for card in cards if card not in set(first)]
    return [*first, *rest]


def f2f_game(
    hand0: Sequence[int],
    hand1: Sequence[int],
    draws0: Sequence[int] = (),
    draws1: Sequence[int] = (),
    *,
    start_seat: int = 0,
) -> games.GameState:
    """Face to Face with the given 6-card hands and next draws; the rest of each deck ascending."""
    assert len(hand0) == len(hand1) == 6
    decks = [full_deck([*hand0, *draws0], F2F_CARDS), full_deck([*hand1, *draws1], F2F_CARDS)]
    return games.new_game(FACE_TO_FACE, seed="test", decks=decks, start_seat=start_seat)


def coop_game(
    game: str,
    hands: Sequence[Sequence[int]],
    draws: Sequence[int] = (),
    *,
    start_seat: int = 0,
    rest: Iterable[int] | None = None,
) -> games.GameState:
    """A co-op game with the given hands (seat order) and next draws; then `rest`, or all other cards
    ascending."""
    players = len(hands)
    assert all(len(hand) == COOP_HAND_SIZES[players] for hand in hands)
    first = [card for hand in hands for card in hand] + list(draws)
    if rest is not None:
        first += [card for card in rest if card not in set(first)]
    deck = full_deck(first, COOP_CARDS)
    return games.new_game(game, players=players, seed="test", decks=[deck], start_seat=start_seat)


def parse_turn(text: str) -> dict[str, Any]:
    """The JSON form of a turn written ``17>up1 7>up1 | up1=jump`` (parsed here, not by the engine)."""
    plays_text, _, signals_text = text.partition("|")
    plays = []
    for token in plays_text.split():
        card, pile = token.split(">")
        plays.append([int(card), pile])
    signals = dict(token.split("=") for token in signals_text.split())
    return {"plays": plays, "signals": signals}


def push(state: games.GameState, *texts: str) -> None:
    """Push turns that must be legal."""
    for text in texts:
        mover = state.to_move
        try:
            state.push(parse_turn(text))
        except games.IllegalTurn as error:  # pragma: no cover - shown only when a test is wrong or the engine is
            pytest.fail(f"seat {mover}: {text!r} was rejected: {error}")


def snapshot(state: games.GameState) -> Any:
    """Everything a player or the log can see of a game."""
    seen = {
        "observations": [state.observation(seat) for seat in range(state.players)],
        "to_move": state.to_move,
        "outcome": repr(state.outcome),
        "log": state.log.to_json(),
    }
    return json.dumps(seen, sort_keys=True)


def assert_rejected(
    state: games.GameState,
    text: str,
    rule: str,
    play_index: int | None,
    *,
    command: bool = False,
    mentions: Sequence[str] = (),
    names: Sequence[str] = ("card", "pile"),
) -> games.IllegalTurn:
    """The turn is refused with this rule at this play, its message names the play's card and pile (or
    those of `names`) and each of `mentions`, and the game is exactly as it was."""
    before = snapshot(state)
    turn = parse_turn(text)
    with pytest.raises(games.IllegalTurn) as caught:
        state.push(turn)
    error = caught.value
    assert (error.rule, error.play_index) == (rule, play_index), str(error)
    assert isinstance(error, games.CommandBroken) == command, f"{type(error).__name__}: {error}"
    message = str(error)
    if play_index is not None:
        card, pile = turn["plays"][play_index - 1]
        assert message.startswith(f"play {play_index}:"), message
        if "card" in names:
            assert re.search(rf"(?<!\d){card}(?!\d)", message), f"card {card} not named in: {message}"
        if "pile" in names:
            assert pile in message, f"pile {pile} not named in: {message}"
    for word in mentions:
        assert word in message, f"{word!r} not in: {message}"
    assert snapshot(state) == before, "a rejected turn changed the game"
    return error


# Numbers an observation shows that are not cards: seats, counts, and the public command table.
PUBLIC_NUMBERS = {("/commands", "table")} | {(f"/piles/{pile}", "owner") for pile in F2F_PILES}
COUNT_FIELDS = {"turn", "players", "seat", "to_move", "hand_sizes", "hand_size", "draw_pile_sizes", "min_plays"}


def check_no_leak(seen: dict[str, Any]) -> None:
    """Apart from counts and the (public) command table, the only cards an observation may show are the
    seat's own hand and the piles."""
    visible = set(seen["hand"]) | {card for info in seen["piles"].values() for card in info["history"]}
    shown: list[int] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int):
            shown.append(value)
        elif isinstance(value, str) and value.isdigit():
            shown.append(int(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                if (path, key) in PUBLIC_NUMBERS or path == "" and key in COUNT_FIELDS:
                    continue
                walk(key, path)
                walk(item, f"{path}/{key}")
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, path)

    walk(seen, "")
    leaked = sorted(set(shown) - visible)
    assert not leaked, f"observation of seat {seen['seat']} shows cards {leaked} it cannot see"


def rules_of(log: dict[str, Any]) -> Rules:
    options = log["options"]
    table: dict[int, str] = {}
    if log["game"] == EXTREME:
        raw = options.get("command_table")
        table = DEFAULT_TABLE if raw is None else {card: name for name, cards in raw.items() for card in cards}
    hand_size = options.get("hand_size") or (6 if log["game"] == FACE_TO_FACE else COOP_HAND_SIZES[options["players"]])
    return Rules(log["game"], options["players"], hand_size, table)


def mirror_of(state: games.GameState) -> MirrorGame:
    """The rules model's own copy of a freshly created game, dealt from the decks the engine logged."""
    log = state.log.to_json()
    assert not log["turns"], "mirror a game before its first turn"
    return MirrorGame(rules_of(log), log["decks"], log["start_seat"])


def hand(state: games.GameState, seat: int) -> list[int]:
    return state.observation(seat)["hand"]


def top(state: games.GameState, pile: str) -> int:
    return state.observation(0)["piles"][pile]["top"]
