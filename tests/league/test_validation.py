"""A new version plays validation games; it becomes active only if it finishes them cleanly."""

from pathlib import Path

import pytest

import bots.house
from league.arena.models import Bot, Match
from league.arena.play import matches
from league.arena.uploads.intake import add_version, inspect_upload

GREEDY_SOURCE = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()
CRASHING = (
    b"import sys\n"
    b"def play(observation):\n"
    b"    print('about to fail: secret 42', file=sys.stderr)\n"
    b"    raise RuntimeError('boom')\n"
)
ILLEGAL = b"def play(observation):\n    return [[observation['hand'][0], 'p0.up']]\n"
SLOW = b"import time\ndef play(observation):\n    time.sleep(0.3)\n    return []\n"


def validate(owner, source, sent, filename="bot.py"):
    bot = Bot.objects.create(owner=owner, name="candidate", game="face-to-face")
    version = add_version(bot, inspect_upload(filename, source))
    match = Match.objects.get(kind="validation", entries__version=version)
    matches.play(match.pk, worker="test:1")
    version.refresh_from_db()
    return version


def test_a_clean_bot_becomes_active(alice, sent):
    version = validate(alice, GREEDY_SOURCE, sent)
    assert (version.status, version.failure_reason) == ("active", "")
    assert version.validated_at is not None


@pytest.mark.parametrize("sandbox", [False, True], ids=["in-process", "sandboxed"])
def test_a_crashing_bot_fails_with_reason_and_stderr(alice, sent, settings, sandbox):
    settings.ARENA_SANDBOX = sandbox
    version = validate(alice, CRASHING, sent)
    assert version.status == "failed"
    assert version.failure_reason == "game 1: crash: play raised RuntimeError"
    assert "RuntimeError: boom" in version.stderr_tail  # the traceback, for the owner alone
    if sandbox:  # only a sandboxed bot's stderr is captured; an in-process one writes to the worker's
        assert "about to fail: secret 42" in version.stderr_tail


def test_an_illegal_turn_fails(alice, sent):
    version = validate(alice, ILLEGAL, sent)
    assert version.status == "failed"
    assert version.failure_reason.startswith("game 1: illegal-turn: ")


def test_a_slow_bot_fails_on_time(alice, sent, settings):
    settings.ARENA_TURN_SECONDS = 0.05
    settings.ARENA_BANK_SECONDS = 0.0
    version = validate(alice, SLOW, sent)
    assert version.status == "failed"
    assert version.failure_reason.startswith("game 1: timeout: ")


def test_validation_games_are_not_rated(alice, sent):
    validate(alice, GREEDY_SOURCE, sent)
    assert not Match.objects.get(kind="validation").rated
    assert all(name != "refit_ratings" for name, _ in sent)
