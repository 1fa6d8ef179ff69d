"""The match runner's order of starting and ending its bots: every seat launched, then every seat booted, then each
started; at the end every bot signalled to end before the first is waited for: the sandboxes' builds, loads and
exits overlap instead of following one another."""

from __future__ import annotations

from typing import Any

import bots.match
from bots.house import load_house_bot
from bots.match import BotSpec, MatchSpec, run_match


class RecordingPlayer:
    """Plays the greedy house bot and records the calls it gets, in the order the runner makes them."""

    def __init__(self, name: str, calls: list[tuple[str, str]]) -> None:
        self.name = name
        self.version = None
        self.calls = calls
        self.module = load_house_bot("greedy")

    def launch(self, timeout: float) -> None:
        self.calls.append(("launch", self.name))

    def boot(self) -> None:
        self.calls.append(("boot", self.name))

    def start(self, timeout: float) -> None:
        self.calls.append(("start", self.name))

    def new_game(self, info: dict[str, Any], timeout: float) -> None:
        self.calls.append(("new_game", self.name))

    def play(self, observation: dict[str, Any], timeout: float) -> tuple[Any, float]:
        return self.module.play(observation), 0.0

    def take_stderr(self) -> str:
        return ""

    def begin_close(self) -> None:
        self.calls.append(("begin_close", self.name))

    def close(self) -> None:
        self.calls.append(("close", self.name))


def test_every_seat_is_launched_then_booted_before_the_first_is_started(monkeypatch):
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(bots.match, "make_player", lambda bot, spec: RecordingPlayer(bot.label, calls))
    spec = MatchSpec("face-to-face", [BotSpec("a", version="sha256:a"), BotSpec("b", version="sha256:b")], games=2)
    run_match(spec)
    assert calls[:6] == [
        ("launch", "a"), ("launch", "b"), ("boot", "a"), ("boot", "b"), ("start", "a"), ("new_game", "a"),
    ]  # fmt: skip
    assert calls[6:8] == [("start", "b"), ("new_game", "b")]
    assert [call for call in calls if call[0] in ("launch", "boot", "start")] == calls[:5] + [("start", "b")]


def test_every_bot_is_signalled_to_end_before_the_first_is_waited_for(monkeypatch):
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(bots.match, "make_player", lambda bot, spec: RecordingPlayer(bot.label, calls))
    spec = MatchSpec("face-to-face", [BotSpec("a", version="sha256:a"), BotSpec("b", version="sha256:b")], games=2)
    run_match(spec)
    assert calls[-4:] == [("begin_close", "a"), ("begin_close", "b"), ("close", "a"), ("close", "b")]
