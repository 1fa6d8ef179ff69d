"""Every way a bot can lose a game by its own fault has words on every page that tells it, and the replay's script
knows every bot failure (a new termination, such as sandbox-violation, must not show as its bare code)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import games
from league.arena.play.replay_data import FAILURES
from league.arena.play.wording import FAULTS
from league.arena.profiles.bot_page import FORFEIT_WORDS

REPLAY_SCRIPT = Path(__file__).resolve().parents[2] / "league" / "arena" / "static" / "arena" / "replay.js"


@pytest.mark.parametrize("words", [FAULTS, FAILURES, FORFEIT_WORDS], ids=["results", "replays", "bot pages"])
def test_every_forfeit_has_words(words):
    assert set(words) == {termination.value for termination in games.FORFEITS}


def test_the_replay_script_knows_every_bot_failure():
    listed = re.search(r"const BOT_FAILURES = \[([^\]]*)\]", REPLAY_SCRIPT.read_text()).group(1)
    assert set(re.findall(r'"([a-z-]+)"', listed)) == {
        termination.value for termination in games.Termination if termination.is_bot_failure
    }
