"""Storing a match never fails because of what a bot sent, and a match that cannot be stored ends.

Real sandboxed bots send each poison of tests/runner/poison_bots.py in validation and exhibition matches,
stored through the worker's path (on PostgreSQL when DATABASE_URL names one: its text columns refuse NUL).
Their stderr and exception text reach the owner's pages only: the public log, replay, match and game pages
and the API's game endpoints are scanned for them. A match whose storing always raises ends `failed` after
ARENA_MATCH_MAX_ATTEMPTS with its reason (for the staff), ends its version's validation, and leaves the
ladder scheduling; so does a match re-sent after its last attempt died without a trace.
"""

from __future__ import annotations

import re
import shutil
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bots.sandbox import seccomp
from league.arena.ladder import scheduling
from league.arena.models import Bot, BotVersion, Game, Match, MatchEntry
from league.arena.play import matches, results
from league.arena.uploads.house import house_version
from league.arena.uploads.intake import add_version, inspect_upload
from tests.runner.poison_bots import EXCEPTION_MARKER, POISONS, STDERR_MARKER

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or not seccomp.available(), reason="needs bubblewrap and libseccomp"
)
MARKERS = (STDERR_MARKER, EXCEPTION_MARKER)


def upload(owner, name: str, source: str) -> BotVersion:
    bot = Bot.objects.create(owner=owner, name=name, game="face-to-face")
    return add_version(bot, inspect_upload(f"{name}.py", source.encode()))


@needs_sandbox
@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_poisoned_validation_is_stored_and_fails_the_version_with_its_reason(poison, alice, sent, settings):
    settings.ARENA_SANDBOX = True
    source, termination = POISONS[poison]
    version = upload(alice, poison, source)
    match = Match.objects.get(kind="validation", entries__version=version)
    assert matches.play(match.pk, worker="test:1")
    match.refresh_from_db()
    version.refresh_from_db()
    assert (match.status, match.error) == ("done", "")
    assert version.status == "failed"
    assert re.match(rf"game 1 of \d+ against house/\w+: {termination}: ", version.failure_reason), (
        version.failure_reason
    )
    assert "\x00" not in version.failure_reason + version.stderr_tail
    game = Game.objects.filter(match=match).order_by("index").first()
    assert game.termination == termination and game.verified_log()["result"]["termination"] == termination
    for marker in MARKERS:
        assert marker not in game.detail and marker not in version.failure_reason
    if poison == "crash":  # its stderr and exception text are kept for the owner, NUL-free
        assert STDERR_MARKER in version.stderr_tail and EXCEPTION_MARKER in version.stderr_tail


@needs_sandbox
def test_a_crashed_bots_stderr_reaches_its_owner_and_no_public_page_log_or_api(alice, bob, sent, settings):
    settings.ARENA_SANDBOX = True
    crasher = upload(alice, "crasher", POISONS["crash"][0])
    crasher.mark_validated(True)  # as if it had passed: its crashes come later, in public matches
    opponent = house_version("house:greedy", "face-to-face")
    match = Match.objects.create_with_entries(
        [crasher, opponent], kind="exhibition", game="face-to-face", games=2, seed="public", rated=False
    )
    assert matches.play(match.pk, worker="test:1")
    entry = MatchEntry.objects.get(match=match, index=0)
    assert STDERR_MARKER in entry.stderr_tail and EXCEPTION_MARKER in entry.stderr_tail
    assert "\x00" not in entry.stderr_tail
    game = Game.objects.filter(match=match).first()
    assert game.termination == "crash" and game.detail == "play raised ValueError"

    public = [
        reverse("match", args=[match.pk]),
        reverse("game", args=[game.pk]),
        reverse("game-log", args=[game.pk]),
        reverse("bot", args=[crasher.bot.pk]),
        f"/api/games/{game.pk}/",
        f"/api/games/{game.pk}/log",
        f"/api/matches/{match.pk}/",
    ]
    for viewer in (Client(), logged_in(bob)):
        for url in public:
            response = viewer.get(url, follow=True)
            assert response.status_code == 200, (url, response.status_code)
            body = response.content.decode()
            for marker in MARKERS:
                assert marker not in body, f"{marker} shown on {url}"
    owner_page = logged_in(alice).get(reverse("match", args=[match.pk])).content.decode()
    assert STDERR_MARKER in owner_page  # the owner's stderr, on the owner's view only


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_match_whose_store_always_raises_fails_after_the_cap_and_the_ladder_goes_on(
    alice, sent, settings, monkeypatch, make_version, django_capture_on_commit_callbacks
):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 3
    settings.ARENA_LADDER_MAX_PENDING = 1
    first, second = make_version(alice, "first"), make_version(alice, "second")
    (match,) = scheduling.schedule("face-to-face")
    monkeypatch.setattr(matches, "match_spec", lambda match, versions: greedy_spec(match))

    def broken(*args, **kwargs):
        raise ValueError("the store broke \x00 badly")

    monkeypatch.setattr(results, "save_games", broken)
    for attempt in range(1, 4):
        with pytest.raises(ValueError), django_capture_on_commit_callbacks(execute=True):
            matches.play(match.pk, worker="test:1")
        match.refresh_from_db()
        assert match.attempts == attempt
    assert match.status == "failed" and match.finished_at is not None
    assert match.error.startswith("attempt 3: storing the results failed: ValueError(")
    assert "\x00" not in match.error
    assert [name for name, _ in sent].count("play_match") == 2  # retried twice, then given up
    assert not matches.play(match.pk, worker="test:1")  # a late re-send finds it finished
    # The slot it held is free: the ladder schedules the next match.
    assert len(scheduling.schedule("face-to-face")) == 1
    assert {first.pk, second.pk} >= set(MatchEntry.objects.filter(match=match).values_list("version", flat=True))

    staff = get_staff()
    page = logged_in(staff).get(reverse("match", args=[match.pk])).content.decode()
    assert "storing the results failed" in page
    public_page = Client().get(reverse("match", args=[match.pk])).content.decode()
    assert "storing the results failed" not in public_page and "could not play this match" in public_page
    admin_list = logged_in(staff).get(reverse("admin:arena_match_changelist")).content.decode()
    assert "storing the results failed" in admin_list


def test_a_validation_whose_workers_keep_dying_fails_its_version(alice, sent, settings, make_version):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2
    settings.ARENA_MATCH_LEASE_SECONDS = 60
    version = make_version(alice, "candidate", status="validating")
    opponent = house_version("house:greedy", "face-to-face")
    stale = timezone.now() - timedelta(seconds=61)
    match = Match.objects.create_with_entries(
        [version, opponent], kind="validation", game="face-to-face", games=1, seed="v", rated=False
    )
    # Its workers died mid-match time after time: running, the heartbeat stale, no error recorded.
    silent = matches.MAX_SILENT_RUNS
    Match.objects.filter(pk=match.pk).update(status="running", attempts=silent, heartbeat_at=stale, queued_at=stale)
    assert not matches.play(match.pk, worker="test:2")
    match.refresh_from_db()
    version.refresh_from_db()
    assert match.status == "failed" and match.attempts == silent + 1
    assert (
        match.error
        == f"gave up after {silent} runs whose workers stopped; the last: its worker stopped before it could say why"
    )
    assert version.status == "failed"
    assert version.failure_reason == f"the server could not run the validation games: {match.error}"


def greedy_spec(match: Match):
    from bots.match import BotSpec, MatchSpec

    bots = [BotSpec("house:greedy", name="a", version="1"), BotSpec("house:random", name="b", version="2")]
    return MatchSpec(game="face-to-face", bots=bots, games=match.games, seed=match.seed, duplicate=True)


def get_staff():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("staff", password="x", is_staff=True, is_superuser=True)
