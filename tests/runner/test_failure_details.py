"""What a forfeit's detail says: a timeout explains the turn time against the turn limit plus the bank; a crash
names where it raised and the exception's type, and keeps the bot's stderr and the exception's text out of the
(public) game log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bots.match
from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.players import BotFailure
from games import Termination
from tests.runner.failing_player import FailingPlayer

TRACEBACK = 'Traceback (most recent call last):\n  File "bot.py", line 3, in play\nValueError: boom secret-7\n'


def test_a_crash_names_its_exception_type_and_its_stderr_stays_out_of_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    real_make_player = bots.match.make_player

    def make_player(bot: BotSpec, spec: MatchSpec) -> Any:
        return (
            FailingPlayer(bot.label, BotFailure(Termination.CRASH, "play raised ValueError", stderr_tail=TRACEBACK))
            if bot.ref == "crasher"
            else real_make_player(bot, spec)
        )

    monkeypatch.setattr(bots.match, "make_player", make_player)
    spec = MatchSpec("face-to-face", [BotSpec("house:greedy"), BotSpec("crasher", version="sha256:c")], games=1)
    result = run_match(spec)
    game = result.games[0]
    assert game.outcome.detail == "play raised ValueError"
    assert "Traceback" not in game.log_json and "secret-7" not in game.log_json
    assert TRACEBACK.strip() in game.stderr[1]  # the owner still sees it, once


class LoggingFailingPlayer(FailingPlayer):
    """Prints before it fails, and its failure's detail starts with the end of that output, as a sandbox's does."""

    def __init__(self, name: str, printed: str) -> None:
        super().__init__(name, BotFailure(Termination.CRASH, "play raised ValueError", stderr_tail=printed + TRACEBACK))
        self.unread = printed

    def take_stderr(self) -> str:
        text, self.unread = self.unread, ""
        return text


def test_a_sandboxed_crash_shows_its_output_once_in_the_games_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    real_make_player = bots.match.make_player
    printed = "thinking about pile p0.up\n"

    def make_player(bot: BotSpec, spec: MatchSpec) -> Any:
        return LoggingFailingPlayer(bot.label, printed) if bot.ref == "crasher" else real_make_player(bot, spec)

    monkeypatch.setattr(bots.match, "make_player", make_player)
    spec = MatchSpec("face-to-face", [BotSpec("house:greedy"), BotSpec("crasher", version="sha256:c")], games=1)
    stderr = run_match(spec).games[0].stderr[1]
    assert stderr.count(printed) == 1 and stderr.endswith(TRACEBACK), stderr


def test_a_timeout_explains_the_turn_time_against_the_limit_and_the_bank(tmp_path: Path) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef play(observation):\n    time.sleep(0.4)\n", encoding="utf-8")
    spec = MatchSpec(
        "face-to-face",
        [BotSpec(str(slow)), BotSpec("house:greedy")],
        games=1,
        time_control=TimeControl(0.05, 0.1, 5.0),
        sandbox=False,
    )
    outcome = run_match(spec).games[0].outcome
    assert outcome.termination == Termination.TIMEOUT
    took = outcome.detail
    assert took.startswith("the turn took 0.4"), took
    assert took.endswith(" s; the limit was 0.05 s per turn plus 0.10 s left in its bank"), took
