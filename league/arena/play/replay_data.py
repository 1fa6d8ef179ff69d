"""What the replay viewer shows at every turn of a game, computed by the engine from the game's log.

The log is replayed turn by turn and the engine's own state is recorded after each turn: every hand, the
draw piles, the pile tops, the signals and the Extreme commands in force. The page's script only lays the
logged plays onto the piles between two of these snapshots, and checks that it lands on the engine's tops.
"""

from __future__ import annotations

from typing import Any, TypedDict

import games
from games.commands import INFINITY, LIGHTNING
from league.arena.models import FACE_TO_FACE

SIGNAL_CODES = {"none": "-", "keep-off": "k", "jump": "j"}


class SeatLabel(TypedDict):
    """How the page names the bot in one seat: its full name, version label and page, and what names it in a
    `python -m bots play` command (a house bot's ref, else a file named after the bot)."""

    name: str
    version: str
    url: str
    file: str


def viewer_data(log: dict[str, Any], seats: list[SeatLabel]) -> dict[str, Any]:
    """Everything the viewer needs, for a log that `games.replay` has already verified."""
    options = log["options"]
    state = games.new_game(
        log["game"],
        options.get("players"),
        str(log.get("seed", "")),
        start_seat=log["start_seat"],
        decks=log["decks"],
        hand_size=options.get("hand_size"),
        command_table=options.get("command_table"),
    )
    first = state.observation(0)
    pile_ids = list(first["piles"])
    states = [_snapshot(state, pile_ids)]
    turns = []
    for entry in log["turns"]:
        seat = entry["seat"]
        before = set(state.hands[seat])
        signals = entry.get("signals")
        state.push({"plays": entry["plays"], "signals": signals} if signals else entry["plays"])
        states.append(_snapshot(state, pile_ids))
        turns.append(
            {
                "seat": seat,
                "plays": entry["plays"],
                "ms": entry.get("ms"),
                "drawn": sorted(set(state.hands[seat]) - before),
            }
        )
    labels = _named_seats(log, seats)
    return {
        "game": log["game"],
        "players": state.players,
        "seats": labels,
        "start_seat": log["start_seat"],
        "piles": [
            {"id": pile, "direction": info["direction"], "owner": info["owner"], "start": info["history"][0]}
            for pile, info in first["piles"].items()
        ],
        "commands": _command_table(first),
        "turns": turns,
        "states": states,
        "rejected": _rejected(log.get("rejected_turn")),
        "result": {
            **log["result"],
            "headline": result_headline(log["game"], log["result"], [s["short"] for s in labels]),
        },
    }


def _snapshot(state: games.GameState, pile_ids: list[str]) -> dict[str, Any]:
    """The engine's state between two turns, in the page's compact form."""
    shared = state.observation(0)
    snapshot: dict[str, Any] = {
        "hands": [sorted(hand) for hand in state.hands],
        "draw": shared["draw_pile_sizes"],
        "tops": [shared["piles"][pile]["top"] for pile in pile_ids],
        "to_move": state.to_move,
    }
    if shared["signals"]:
        # One string per seat, one letter per pile: "-" none, "k" keep-off, "j" jump.
        snapshot["signals"] = ["".join(SIGNAL_CODES[seat[pile]] for pile in pile_ids) for seat in shared["signals"]]
    if shared["commands"] is not None:
        snapshot["in_force"] = shared["commands"]["in_force"]
    return snapshot


def _command_table(observation: dict[str, Any]) -> dict[str, Any] | None:
    commands = observation["commands"]
    if commands is None:
        return None
    return {
        "cards": commands["table"],
        "lightning": list(LIGHTNING),
        "infinity": list(INFINITY),
    }


def _named_seats(log: dict[str, Any], known: list[SeatLabel]) -> list[dict[str, str]]:
    """The database's names where it has them, else the log's; "#seat" added only where names repeat."""
    logged = {entry.get("seat"): entry.get("bot") for entry in log.get("seats", [])}
    labels: list[dict[str, str]] = []
    for seat in range(log["options"].get("players") or len(logged)):
        if seat < len(known):
            labels.append(dict(known[seat]))
        else:
            labels.append({"name": logged.get(seat) or f"seat {seat + 1}", "version": "", "url": "", "file": ""})
    names = [label["name"] for label in labels]
    for seat, label in enumerate(labels):
        label["short"] = label["name"] if names.count(label["name"]) == 1 else f"{label['name']} #{seat + 1}"
    return labels


FAILURES = {
    "illegal-turn": "made an illegal turn",
    "command-broken": "broke a command",
    "timeout": "ran out of time",
    "crash": "crashed",
    "protocol-error": "broke the protocol",
    "resource-limit": "went over a resource limit",
    "sandbox-violation": "ran while held between its turns",
}


def result_headline(game: str, result: dict[str, Any], names: list[str]) -> str:
    """The result in words, naming the bots: "bob/random cannot make a legal turn: alice/greedy wins"."""
    termination, seat = result["termination"], result.get("seat")
    culprit = names[seat] if seat is not None and 0 <= seat < len(names) else None
    if game == FACE_TO_FACE:
        winner = names[result["winner"]]
        if termination == "all-cards-played":
            return f"{winner} played all 58 cards and wins"
        if termination == "stuck":
            return f"{culprit} cannot make a legal turn: {winner} wins"
        return f"{culprit} {FAILURES.get(termination, termination)}: {winner} wins"
    if termination == "all-cards-played":
        return "All 98 cards were placed: the team wins"
    left = f"{result['score']} card(s) not placed"
    if termination == "stuck":
        return f"{culprit} cannot make a legal turn: the game ends with {left}"
    return f"{culprit} {FAILURES.get(termination, termination)}: the team loses with {left}"


def _rejected(rejected: dict[str, Any] | None) -> dict[str, Any] | None:
    """The illegal turn that ended the game, as plays when it is well formed, else as the bot sent it."""
    if rejected is None:
        return None
    raw = rejected.get("turn")
    try:
        turn = games.Turn.from_json(raw)
        plays = [[play.card, play.pile] for play in turn.plays]
    except games.IllegalTurn:
        plays = None
    return {
        "seat": rejected.get("seat"),
        "plays": plays,
        "raw": games.dumps_log(raw) if plays is None else None,
        "rule": rejected.get("rule"),
        "ms": rejected.get("ms"),
    }
