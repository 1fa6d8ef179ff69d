"""The seat-side of a match: something that answers observations with turns.

A match runner talks to every bot through the `Player` protocol, whether the bot runs in this
process (house bots, an author's own bot with --unsafe-no-sandbox) or in a bubblewrap sandbox.
A bot's failure is raised as a `BotFailure` carrying the termination reason the game log records.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from games import Termination


class BotFailure(Exception):
    """The bot did not produce a turn: crashed, timed out, broke the protocol or a resource limit."""

    def __init__(self, termination: Termination, detail: str, stderr_tail: str = "") -> None:
        super().__init__(detail)
        self.termination = termination
        self.detail = detail
        self.stderr_tail = stderr_tail


class Player(Protocol):
    """One bot process (or module) serving one seat for a whole match."""

    name: str
    version: str | None

    def launch(self, timeout: float) -> None:
        """Begin loading the bot without waiting for it (so that several bots load at once); start() finishes."""

    def boot(self) -> None:
        """Carry a launch on as far as it goes without waiting for the bot's own code (a sandbox: once built, the
        bot is put into it), so that every seat's launch is under way before the first is waited for."""

    def start(self, timeout: float) -> None:
        """Load the bot; raise BotFailure if it cannot start within `timeout` seconds (of its launch)."""

    def new_game(self, info: dict[str, Any], timeout: float) -> None:
        """Tell the bot a game starts (calls its optional `new_game(info)`)."""

    def play(self, observation: dict[str, Any], timeout: float) -> tuple[Any, float]:
        """Return the bot's raw turn (JSON form) and the seconds it took; raise BotFailure."""

    def take_stderr(self) -> str:
        """Return and clear what the bot wrote to stderr/stdout since the last call (capped)."""

    def begin_close(self) -> None:
        """Begin stopping the bot without waiting for it (close() finishes), so that several bots end at once."""

    def close(self) -> None:
        """Stop the bot; nothing of it may outlive this call."""


def load_module_from_file(path: Path, module_name: str) -> ModuleType:
    """Import a bot file (or a bot directory's bot.py) as a fresh module object."""
    path = Path(path)
    if path.is_dir():
        path = path / "bot.py"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load a bot from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def _crash(where: str, error: Exception) -> BotFailure:
    """A bot's exception: its type for the (public) game log, its traceback for the owner, as in the sandbox."""
    trace = "".join(traceback.format_exception(error))
    return BotFailure(Termination.CRASH, f"{where} raised {type(error).__name__}", stderr_tail=trace)


class BoundedText(io.TextIOBase):
    """A text stream that keeps what is written to it up to `cap` characters and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        room = self.cap - self.kept
        if len(text) <= room:
            self.parts.append(text)
            self.kept += len(text)
        else:
            self.parts.append(text[: max(0, room)])
            self.kept = self.cap
            self.dropped += len(text) - max(0, room)
        return len(text)

    def take(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output dropped]\n"
        self.parts.clear()
        self.kept = self.dropped = 0
        return text


class InProcessPlayer:
    """Runs a trusted bot module in this process: house bots, or an author's bot without a sandbox.

    Time is measured but cannot be enforced pre-emptively; a slow turn is reported after the fact. With
    `capture_output` what the bot prints (stdout and stderr, as in the sandbox) is kept for `take_stderr`
    instead of reaching the terminal, up to `output_cap` characters between two takes.
    """

    def __init__(
        self,
        module: ModuleType,
        name: str,
        version: str | None = None,
        capture_output: bool = False,
        output_cap: int = 64 * 1024,
    ) -> None:
        self.module = module
        self.name = name
        self.version = version
        if not callable(getattr(module, "play", None)):
            raise TypeError(f"bot {name} defines no play(observation) function")
        self._new_game = getattr(module, "new_game", None)
        self._output = BoundedText(output_cap) if capture_output else None

    def _captured(self) -> contextlib.AbstractContextManager:
        if self._output is None:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        stack.enter_context(contextlib.redirect_stdout(self._output))
        stack.enter_context(contextlib.redirect_stderr(self._output))
        return stack

    def launch(self, timeout: float) -> None:
        return None

    def boot(self) -> None:
        return None

    def start(self, timeout: float) -> None:
        return None

    def new_game(self, info: dict[str, Any], timeout: float) -> None:
        if self._new_game is not None:
            try:
                with self._captured():
                    self._new_game(info)
            except Exception as error:  # a bot's bug is a crash, never the runner's
                raise _crash("new_game", error) from error

    def play(self, observation: dict[str, Any], timeout: float) -> tuple[Any, float]:
        started = time.perf_counter()
        try:
            with self._captured():
                turn = self.module.play(observation)
        except Exception as error:
            raise _crash("play", error) from error
        elapsed = time.perf_counter() - started
        if elapsed > timeout:
            raise BotFailure(Termination.TIMEOUT, f"the turn took {elapsed:.2f} s")
        return turn, elapsed

    def take_stderr(self) -> str:
        return "" if self._output is None else self._output.take()

    def begin_close(self) -> None:
        return None

    def close(self) -> None:
        return None
