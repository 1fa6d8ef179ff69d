"""A new version plays validation games; it becomes active only if it finishes them cleanly.

The suite's conftest shortens validation to 2 games against house:random; the tests marked `league_validation` play
the league's own (20 games against each of house:random and house:greedy, duplicate deals) with the known broken
bots of bench/broken_bots (bench.validation measures how often such games catch them).
"""

from pathlib import Path

import pytest
from django.urls import reverse

import bots.house
from bench import broken_bots
from league.arena.models import Bot, Game, Match, Notification
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
    for match in Match.objects.filter(kind="validation", entries__version=version).order_by("pk"):
        matches.play(match.pk, worker="test:1")
    version.refresh_from_db()
    return version


@pytest.fixture
def league_validation(settings):
    settings.ARENA_VALIDATION_GAMES = 20
    settings.ARENA_VALIDATION_OPPONENTS = ["house:random", "house:greedy"]


def test_the_league_validates_against_random_and_greedy_on_duplicate_deals(alice, sent, league_validation):
    version = validate(alice, GREEDY_SOURCE, sent)
    assert (version.status, version.failure_reason) == ("active", "")
    played = Match.objects.filter(kind="validation", entries__version=version, entries__index=0).order_by("pk")
    opponents = [match.ordered_versions()[1].bot.house_ref for match in played]
    assert opponents == ["house:random", "house:greedy"]
    assert all(match.duplicate and match.games_done == 20 for match in played)


def test_a_version_waits_for_every_validation_match(alice, sent, league_validation):
    bot = Bot.objects.create(owner=alice, name="candidate", game="face-to-face")
    version = add_version(bot, inspect_upload("bot.py", GREEDY_SOURCE))
    first, second = Match.objects.filter(kind="validation", entries__version=version).order_by("pk")
    matches.play(second.pk, worker="test:1")
    version.refresh_from_db()
    assert version.status == "validating"  # one opponent still to meet
    matches.play(first.pk, worker="test:1")
    version.refresh_from_db()
    assert version.status == "active"


@pytest.mark.parametrize(
    "name, replace, termination",
    [
        ("illegal_sometimes", {}, "illegal-turn"),
        ("crash_after", {}, "crash"),
        ("slow_long", {"THINK_SECONDS = 3.0": "THINK_SECONDS = 0.03"}, "timeout"),  # the clock / 100, as the bench
    ],
)
def test_the_known_broken_bots_fail_naming_the_game(
    alice, sent, league_validation, settings, django_capture_on_commit_callbacks, name, replace, termination
):
    if name == "slow_long":
        settings.ARENA_TURN_SECONDS, settings.ARENA_BANK_SECONDS = 0.01, 0.1
    with django_capture_on_commit_callbacks(execute=True):
        version = validate(alice, broken_bots.source(name, **replace), sent)
    assert version.status == "failed"
    assert f": {termination}: " in version.failure_reason
    assert " of 20 against house/" in version.failure_reason
    (notice,) = Notification.objects.filter(recipient=alice, kind="version-failed")
    game_id = int(notice.url.rstrip("/").split("/")[-1])
    assert notice.url == reverse("game", args=[game_id])
    failed = Game.objects.get(pk=game_id)
    assert failed.termination == termination
    assert failed.seats.get(seat=failed.fault_seat).version_id == version.pk
    assert f"game {failed.index + 1} of 20" in version.failure_reason


def test_a_clean_bot_becomes_active(alice, sent):
    version = validate(alice, GREEDY_SOURCE, sent)
    assert (version.status, version.failure_reason) == ("active", "")
    assert version.validated_at is not None


@pytest.mark.parametrize("sandbox", [False, True], ids=["in-process", "sandboxed"])
def test_a_crashing_bot_fails_with_reason_and_stderr(alice, sent, settings, sandbox):
    settings.ARENA_SANDBOX = sandbox
    version = validate(alice, CRASHING, sent)
    assert version.status == "failed"
    assert version.failure_reason == "game 1 of 2 against house/random: crash: play raised RuntimeError"
    assert "RuntimeError: boom" in version.stderr_tail  # the traceback, for the owner alone
    if sandbox:  # only a sandboxed bot's stderr is captured; an in-process one writes to the worker's
        assert "about to fail: secret 42" in version.stderr_tail


def test_an_illegal_turn_fails(alice, sent):
    version = validate(alice, ILLEGAL, sent)
    assert version.status == "failed"
    assert version.failure_reason.startswith("game 1 of 2 against house/random: illegal-turn: ")


def test_a_slow_bot_fails_on_time(alice, sent, settings):
    settings.ARENA_TURN_SECONDS = 0.05
    settings.ARENA_BANK_SECONDS = 0.0
    version = validate(alice, SLOW, sent)
    assert version.status == "failed"
    assert version.failure_reason.startswith("game 1 of 2 against house/random: timeout: ")


def test_validation_games_are_not_rated(alice, sent):
    validate(alice, GREEDY_SOURCE, sent)
    assert not Match.objects.get(kind="validation").rated  # conftest: one opponent
    assert all(name != "refit_ratings" for name, _ in sent)
