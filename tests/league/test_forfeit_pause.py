"""Pause for forfeits: a ladder version forfeiting more than the set share of its recent ladder games leaves the ladder
(nothing deleted), its owner is told with links to the games, and resumes it or uploads a fix."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

import games
from bots.match import GameResult
from league.arena.ladder import forfeits as pause_rule
from league.arena.models import Bot, Match, Notification
from league.arena.play import events, results


@pytest.fixture(autouse=True)
def _rule(settings):
    settings.ARENA_FORFEIT_PAUSE_SHARE = 0.2
    settings.ARENA_FORFEIT_PAUSE_GAMES = 50
    settings.ARENA_FORFEIT_PAUSE_MIN_GAMES = 10


def store_ladder_match(a, b, forfeits: int, clean: int, termination=games.Termination.CRASH) -> Match:
    """A stored ladder match of `a` (seat 0) against `b`: `forfeits` games `a` forfeited, then `clean` games it lost
    fairly; stored and announced as the worker does (events.match_stored in the storing transaction)."""
    played = []
    for index in range(forfeits + clean):
        if index < forfeits:
            outcome = games.Outcome(termination, winner=1, seat=0, detail="play raised KeyError")
        else:
            outcome = games.Outcome(games.Termination.STUCK, winner=1, seat=0)
        log = {"seed": f"s{index}", "start_seat": 0, "turns": []}
        played.append(GameResult.from_log(index=index, deal=index, log=log, outcome=outcome, seat_bots=[0, 1]))
    with transaction.atomic():
        match = Match.objects.create_with_entries(
            [a, b], kind="ladder", game="face-to-face", games=len(played), seed="s", rated=False, status="done"
        )
        stored = results.save_games(match, [a, b], played, {}, timezone.now())
        events.send_match_stored(match, [a, b], stored, None)
    return match


@pytest.fixture
def ace(alice, make_version):
    return make_version(alice, "ace")


@pytest.fixture
def rival(bob, make_version):
    return make_version(bob, "rival")


def on_ladder(version) -> bool:
    return Bot.objects.on_ladder().filter(pk=version.bot_id).exists()


def test_forfeiting_more_than_the_share_pauses_and_tells_the_owner(
    client, alice, ace, rival, django_capture_on_commit_callbacks
):
    queued = Match.objects.create_with_entries([ace, rival], kind="ladder", game="face-to-face", games=10, seed="q")
    with django_capture_on_commit_callbacks(execute=True):
        match = store_ladder_match(ace, rival, forfeits=3, clean=7)  # 30 % of 10
    bot = Bot.objects.get(pk=ace.bot_id)
    assert bot.paused_at is not None and not on_ladder(ace) and on_ladder(rival)
    assert (
        bot.paused_reason == "v1 forfeited 3 of its last 10 ladder games (crash 3), more than the 20% the ladder allows"
    )
    assert not Match.objects.filter(pk=queued.pk).exists()  # its queued ladder match is withdrawn
    assert bot.versions.count() == 1 and match.played_games.count() == 10  # nothing is deleted
    (notice,) = Notification.objects.filter(recipient=alice, kind="bot-paused")
    assert notice.url == reverse("bot", args=[bot.pk]) + "#paused"
    assert "forfeited 3 of its last 10" in notice.text and "upload a fix" in notice.text
    page = client.get(reverse("bot", args=[bot.pk])).content.decode()
    assert 'id="paused"' in page
    for game in match.played_games.filter(termination="crash"):
        assert f'href="/games/{game.pk}/"' in page  # each forfeited game linked


@pytest.mark.parametrize(("forfeits", "clean"), [(2, 8), (3, 6)], ids=["at the share", "too few games"])
def test_no_pause_at_the_share_or_before_enough_games(ace, rival, forfeits, clean):
    store_ladder_match(ace, rival, forfeits=forfeits, clean=clean)
    assert Bot.objects.get(pk=ace.bot_id).paused_at is None and on_ladder(ace)


def test_house_bots_and_other_matches_are_never_paused(ace, rival):
    Match.objects.filter(kind="ladder").delete()
    with transaction.atomic():
        match = Match.objects.create_with_entries(
            [ace, rival], kind="scrim", game="face-to-face", games=1, seed="s", rated=False, status="done"
        )
        events.send_match_stored(match, [ace, rival], [], None)
    store_ladder_match(rival, ace, forfeits=0, clean=10)  # ace wins every game: the rival is at fault in none
    assert Bot.objects.filter(paused_at__isnull=False).count() == 0


def test_the_owner_resumes_and_forfeits_are_counted_afresh(client, alice, bob, ace, rival):
    store_ladder_match(ace, rival, forfeits=5, clean=5)
    client.force_login(bob)
    assert client.post(reverse("resume-bot", args=[ace.bot_id])).status_code in (403, 404)
    assert Bot.objects.get(pk=ace.bot_id).paused_at is not None
    client.force_login(alice)
    page = client.get(reverse("bot", args=[ace.bot_id])).content.decode()
    assert reverse("resume-bot", args=[ace.bot_id]) in page  # the owner's button
    assert client.post(reverse("resume-bot", args=[ace.bot_id])).status_code == 302
    assert on_ladder(ace)
    store_ladder_match(ace, rival, forfeits=1, clean=9)  # 1 in 10 since the resume; 6 in 20 before it
    assert Bot.objects.get(pk=ace.bot_id).paused_at is None


def test_a_fix_that_passes_validation_ends_the_pause(alice, ace, rival, make_version):
    store_ladder_match(ace, rival, forfeits=5, clean=5)
    assert not on_ladder(ace)
    fixed = make_version(alice, "ace")  # v2, active: the bot's ladder version
    assert on_ladder(fixed) and Bot.objects.get(pk=ace.bot_id).paused_reason == ""


def test_the_rule_reads_only_its_window_of_recent_ladder_games(ace, rival, settings):
    settings.ARENA_FORFEIT_PAUSE_GAMES = 20
    first = store_ladder_match(ace, rival, forfeits=3, clean=17)
    record = pause_rule.recent_record(ace)
    assert record.games == 20 and [g.index for g in record.forfeits] == [2, 1, 0]  # newest first
    assert pause_rule.recent_counts(ace) == (20, 3)
    store_ladder_match(ace, rival, forfeits=0, clean=5)
    with CaptureQueriesContext(connection) as run:
        record = pause_rule.recent_record(ace)
    assert (record.games, record.forfeits) == (20, [])  # the three forfeits fell out of the window
    assert len(run) == 2 and all("LIMIT" in q["sql"] or "IN (" in q["sql"] for q in run.captured_queries)
    assert pause_rule.recent_counts(ace) == (20, 0)
    resumed = first.played_games.first().played_at  # as if resumed after the first match: only the second counts
    assert pause_rule.recent_record(ace, since=resumed).games == 5 and pause_rule.recent_counts(ace, resumed) == (5, 0)
    assert pause_rule.recent_counts(rival) == (20, 0)  # its opponent's forfeits are not its own


def test_only_versions_that_ever_forfeited_are_judged(ace, rival, monkeypatch):
    judged = []
    monkeypatch.setattr(pause_rule, "judge", lambda version: judged.append(version.pk))
    store_ladder_match(ace, rival, forfeits=0, clean=10)
    assert judged == []  # neither ever forfeited: neither can be over the share
    store_ladder_match(ace, rival, forfeits=1, clean=9)
    store_ladder_match(ace, rival, forfeits=0, clean=10)
    assert judged == [ace.pk, ace.pk]  # once it has, each of its matches is judged, clean ones too


def test_a_clean_match_that_brings_a_forfeiter_to_the_minimum_games_pauses_it(ace, rival):
    store_ladder_match(ace, rival, forfeits=3, clean=6)  # 3 of 9: too few games to judge
    assert Bot.objects.get(pk=ace.bot_id).paused_at is None
    store_ladder_match(ace, rival, forfeits=0, clean=1)  # 3 of 10
    assert Bot.objects.get(pk=ace.bot_id).paused_at is not None
