"""How a game ended: a Termination reason and the Outcome that carries it (as python-chess does)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Termination(enum.StrEnum):
    ALL_CARDS_PLAYED = "all-cards-played"
    STUCK = "stuck"
    ILLEGAL_TURN = "illegal-turn"
    COMMAND_BROKEN = "command-broken"
    TIMEOUT = "timeout"
    CRASH = "crash"
    PROTOCOL_ERROR = "protocol-error"
    RESOURCE_LIMIT = "resource-limit"
    SANDBOX_VIOLATION = "sandbox-violation"  # the bot ran while the runner held it between its turns

    @property
    def is_bot_failure(self) -> bool:
        """A failure of the bot program itself, which a log can record but not re-check."""
        return self in BOT_FAILURES

    @property
    def is_forfeit(self) -> bool:
        """The seat at fault loses by it: anything but playing every card or getting stuck."""
        return self in FORFEITS


BOT_FAILURES = frozenset(
    {
        Termination.TIMEOUT,
        Termination.CRASH,
        Termination.PROTOCOL_ERROR,
        Termination.RESOURCE_LIMIT,
        Termination.SANDBOX_VIOLATION,
    }
)
# Members are str, so `"crash" in FORFEITS` holds as well as `Termination.CRASH in FORFEITS`.
FORFEITS = frozenset({Termination.ILLEGAL_TURN, Termination.COMMAND_BROKEN} | BOT_FAILURES)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game.

    winner: the winning seat in Face to Face; None in the co-op games.
    score: cards not placed in the co-op games (0 means the team won); None in Face to Face.
    seat: the seat at fault (illegal turn, crash, ...) or the seat that was stuck; None when all cards were played.
    """

    termination: Termination
    winner: int | None = None
    score: int | None = None
    seat: int | None = None
    detail: str = ""

    @property
    def team_won(self) -> bool:
        return self.score == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "termination": self.termination.value,
            "winner": self.winner,
            "score": self.score,
            "seat": self.seat,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        return cls(
            termination=Termination(data["termination"]),
            winner=data.get("winner"),
            score=data.get("score"),
            seat=data.get("seat"),
            detail=data.get("detail", ""),
        )

    def __str__(self) -> str:
        if self.winner is not None:
            return f"seat {self.winner} wins ({self.termination.value})"
        return f"score {self.score} ({self.termination.value})"
