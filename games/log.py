"""The game log: everything needed to replay and check a game with no other input (RULES.md section 4).

This module holds the log's data and its JSON form; `games.replay` re-simulates a log and checks it.
The format is described by `games/schemas/game-log.schema.json` and `docs/game-log.md`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from games.moves import Turn
from games.outcome import Outcome

LOG_FORMAT = "thegame-arena/game-log"
LOG_VERSION = 1


@dataclass
class GameLog:
    game: str
    options: dict[str, Any]
    seed: str
    start_seat: int
    decks: list[list[int]]
    dealt_from_seed: bool = False
    seats: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    rejected_turn: dict[str, Any] | None = None
    result: Outcome | None = None

    def __post_init__(self) -> None:
        if not self.seats:  # every seat is listed, whoever plays it: no bot named until set_bots
            self.set_bots([(None, None)] * self.options["players"])

    def record_turn(self, seat: int, turn: Turn, ms: float | None) -> None:
        self.turns.append(
            {
                "seat": seat,
                "plays": [[play.card, play.pile] for play in turn.plays],
                "signals": turn.signals_json(),
                "ms": None if ms is None else round(ms, 3),
            }
        )

    def set_bots(self, bots: list[tuple[str | None, str | None]]) -> None:
        """Name the bot (and its version hash) in each seat."""
        self.seats = [{"seat": seat, "bot": name, "version": version} for seat, (name, version) in enumerate(bots)]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "dealt_from_seed": self.dealt_from_seed,
            "seats": self.seats,
            "start_seat": self.start_seat,
            "decks": self.decks,
            "turns": self.turns,
            "rejected_turn": self.rejected_turn,
            "result": None if self.result is None else self.result.to_json(),
        }

    def dumps(self) -> str:
        return dumps_log(self.to_json())

    def write(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps() + "\n", encoding="utf-8")


def dumps_log(log: dict[str, Any]) -> str:
    """A log's compact JSON text, as `json.dumps(log, separators=(",", ":"), ensure_ascii=False)` writes it.

    orjson is about 8x faster than the standard library here, and a match runner serialises every game it plays.
    """
    return orjson.dumps(log, option=orjson.OPT_NON_STR_KEYS).decode()


def read_log(path: str | Path) -> dict[str, Any]:
    """Read a log file as JSON (no checking: that is `games.replay`'s job)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
