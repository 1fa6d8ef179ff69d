"""A game log printed turn by turn for people: piles, the mover's hand, the plays."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from games.moves import Turn
from games.replay import _initial_state


def render(log: dict[str, Any]) -> Iterator[str]:
    """Lines describing the game in `log`, re-simulated so hands and piles can be shown."""
    state = _initial_state(log)
    seats = {entry.get("seat"): _printable(entry.get("bot")) for entry in log.get("seats", [])}
    yield f"{log['game']}  seed {log.get('seed')}  {state.players} player(s)  seat {log['start_seat']} starts"
    for seat in range(state.players):
        yield f"  seat {seat}: {seats.get(seat) or '?'}"
    for number, entry in enumerate(log["turns"], start=1):
        seat = entry["seat"]
        yield ""
        yield f"turn {number}: seat {seat} ({seats.get(seat) or '?'})" + (
            f", {entry['ms']} ms" if entry.get("ms") is not None else ""
        )
        yield "  piles  " + _piles(state.tops)
        yield "  hand   " + " ".join(str(card) for card in sorted(state.hands[seat]))
        turn = Turn.from_json({"plays": entry["plays"], "signals": entry.get("signals") or {}})
        yield "  plays  " + str(turn)
        state.push(turn)
    if log.get("rejected_turn"):
        yield ""
        rejected = log["rejected_turn"]
        yield f"rejected turn by seat {_printable(rejected.get('seat'))}: {_printable(rejected.get('turn'))}"
    yield ""
    yield "  piles  " + _piles(state.tops)
    result = log.get("result") or {}
    yield f"result: {result.get('termination')}" + (
        f", seat {result['winner']} wins" if result.get("winner") is not None else f", score {result.get('score')}"
    )
    if result.get("detail"):
        yield f"  {_printable(result['detail'])}"


def _piles(tops: dict[str, int]) -> str:
    return "  ".join(f"{pile}:{top:>3}" for pile, top in tops.items())


# C0 controls, DEL and C1 controls: ESC starts terminal escape sequences, CSI (U+009B) does on some terminals.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _printable(value: Any) -> str:
    """`value` as text a terminal shows literally: bot-supplied control characters become `\\x1b`-style escapes."""
    if value is None:
        return ""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", str(value))
