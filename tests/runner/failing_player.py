"""A stand-in player whose every turn fails as the sandbox reports it: for runner tests of failure wording."""

from __future__ import annotations

from typing import Any

from bots.players import BotFailure


class FailingPlayer:
    """Each turn raises `failure` (a BotFailure with the stderr tail the sandbox would report)."""

    def __init__(self, name: str, failure: BotFailure) -> None:
        self.name = name
        self.version = None
        self.failure = failure

    def launch(self, timeout: float) -> None:
        return None

    def boot(self) -> None:
        return None

    def start(self, timeout: float) -> None:
        return None

    def new_game(self, info: dict[str, Any], timeout: float) -> None:
        return None

    def play(self, observation: dict[str, Any], timeout: float) -> tuple[Any, float]:
        raise self.failure

    def take_stderr(self) -> str:
        return ""

    def begin_close(self) -> None:
        return None

    def close(self) -> None:
        return None
