"""What each bot wrote during each of its turns, and how long it thought: the private side of a game.

The game log is public and never holds a bot's text; this record is for the bot's owner (the league shows it beside
the turns of the replay, `python -m bots play --log-dir` writes it beside each log as `game-NNNNNN.output.jsonl`).
It covers the bots whose output the runner captures (uploaded and local bot files, sandboxed or not; the house bots
print nothing). Turn 0 is what a bot wrote while the game was being set up (its `new_game`).

Bounds: a turn keeps at most TURN_CAP characters (the start and the end of what was written, with a note of what was
dropped between), a game at most GAME_CAP in all; past that a turn keeps its think time and the count of characters
dropped. Text passes `storable_text` (no NULs, no lone surrogates), as everything a bot sends does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bots.reply_bounds import storable_text

TURN_CAP = 2_000
GAME_CAP = 32_000


@dataclass
class TurnOutputs:
    """The per-turn records of one game, in the order the turns were played."""

    records: list[dict[str, Any]] = field(default_factory=list)
    kept: int = 0

    def add(self, turn: int, seat: int, bot: str, ms: float | None, text: str) -> None:
        """Record turn `turn` of `seat` (0: the game's set-up): its think time in ms and what it wrote."""
        if turn == 0 and not text:
            return
        record: dict[str, Any] = {"turn": turn, "seat": seat, "bot": bot, "ms": None if ms is None else round(ms, 3)}
        text = bounded(text, TURN_CAP) if text else text
        if self.kept + len(text) > GAME_CAP:
            if text:
                record["dropped"] = len(text)
            text = ""
        self.kept += len(text)
        record["stderr"] = text
        self.records.append(record)

    def to_json(self) -> list[dict[str, Any]]:
        return list(self.records)


def bounded(text: str, cap: int) -> str:
    """`text` storable and at most about `cap` characters: its start and its end, with a note of what is dropped."""
    text = storable_text(text, cap=1 << 62)
    if len(text) <= cap:
        return text
    half = cap // 2
    dropped = len(text) - 2 * half
    return f"{text[:half]}\n[... {dropped} characters dropped ...]\n{text[-half:]}"


def with_failure_detail(text: str, detail: str) -> str:
    """A failed turn's output followed by the failure's detail for the owner (a traceback, a malformed reply), less
    the part of the detail that the output already ends with (a sandbox's detail starts with the end of its log)."""
    if not detail or detail in text:
        return text
    for overlap in range(min(len(detail), len(text)), 0, -1):
        if text.endswith(detail[:overlap]):
            return text + detail[overlap:]
    return text + detail


def dumps_jsonl(records: Iterable[dict[str, Any]]) -> str:
    """The records as JSON Lines, one turn a line (the `.output.jsonl` file beside a log)."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
