"""Errors the engine raises: an illegal turn (state unchanged) and a log that does not replay."""

from __future__ import annotations


class IllegalTurn(ValueError):
    """A submitted turn breaks a rule. The game state is left exactly as it was.

    play_index: 1-based index of the first bad play, or None when the turn as a whole is wrong.
    rule: a short machine-readable id of the rule broken (e.g. "pile-order", "too-few-plays").
    """

    def __init__(self, message: str, *, rule: str, play_index: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.play_index = play_index


class CommandBroken(IllegalTurn):
    """A turn breaks an Extreme command (stop, skull, three, silence, no-trick, one-pile)."""


class GameOver(IllegalTurn):
    """A turn was submitted after the game ended."""


class LogMismatch(ValueError):
    """A game log does not replay: the recorded game disagrees with the rules or with itself.

    turn: 1-based index of the turn where replay disagreed, or None for the log's header or result.
    """

    def __init__(self, message: str, *, turn: int | None = None) -> None:
        where = f"turn {turn}: " if turn is not None else ""
        super().__init__(where + message)
        self.turn = turn
