"""A worker that cannot give sandboxes their cgroups runs no uploaded bot, unless its operator opts out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bots.house
from bots.sandbox import cgroups
from league.arena.models import Bot, Match
from league.arena.play import matches
from league.arena.play.hosts import HostSick
from league.arena.uploads.intake import add_version, inspect_upload

GREEDY_SOURCE = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()


@pytest.fixture
def sandboxed(settings, sandbox_works):
    settings.ARENA_SANDBOX = True
    settings.ARENA_MATCH_MAX_ATTEMPTS = 1  # one refusal is final: its reason reaches the version


@pytest.fixture
def sandbox_works(tmp_path_factory):
    from bots.sandbox import SandboxedPlayer, SandboxUnavailable

    bot = tmp_path_factory.mktemp("probe") / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    try:
        with SandboxedPlayer(bot) as player:
            player.start(10)
    except SandboxUnavailable as error:
        pytest.skip(f"no usable sandbox on this host: {error}")


@pytest.fixture
def no_cgroups(monkeypatch):
    monkeypatch.setattr(cgroups, "create", lambda *args, **kwargs: None)


def validate(owner):
    bot = Bot.objects.create(owner=owner, name="candidate", game="face-to-face")
    version = add_version(bot, inspect_upload("bot.py", GREEDY_SOURCE))
    match = Match.objects.get(kind="validation", entries__version=version)
    try:
        matches.play(match.pk, worker="test:1")
        raised = ""
    except (cgroups.CgroupsUnavailable, HostSick) as error:
        raised = str(error)
    version.refresh_from_db()
    match.refresh_from_db()
    return version, match, raised


def test_without_cgroups_an_upload_is_not_run_and_the_worker_stands_down_naming_the_setting(
    alice, sent, sandboxed, no_cgroups
):
    """A worker without cgroups is the worker's fault, not the upload's: the match waits for a healthy worker."""
    version, match, raised = validate(alice)
    assert version.status == "validating"
    assert (match.status, match.failures) == ("queued", 0)
    # raised to the task, which stands the worker down with this reason (tests/league/test_worker_health.py)
    assert "refusing to run an uploaded bot without cgroups" in raised
    assert "ARENA_SANDBOX_WITHOUT_CGROUPS=true" in raised


def test_the_operator_can_opt_out(alice, sent, settings, sandboxed, no_cgroups):
    settings.ARENA_SANDBOX_WITHOUT_CGROUPS = True
    version, _, raised = validate(alice)
    assert (version.status, version.failure_reason, raised) == ("active", "", "")


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner creates cgroups")
def test_with_cgroups_uploads_run_without_any_opt_out(alice, sent, settings, sandboxed):
    if not cgroups.available():
        pytest.skip("this host offers no cgroups to the runner")
    assert settings.ARENA_SANDBOX_WITHOUT_CGROUPS is False
    version, _, raised = validate(alice)
    assert (version.status, raised) == ("active", "")
