"""Running a tournament from its page: staff actions behind a confirmation (POST, CSRF, permission), cancelling
without anything half-recorded, re-running failed matches, and owners entering bots while registration is open."""

import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction
from django.test import Client
from django.urls import reverse

import bots.match
from league.arena.models import Game, Match, Tournament, TournamentEntry
from league.arena.play import matches
from league.arena.tournaments import ops as tournament_ops
from league.arena.tournaments import starting as tournaments
from league.arena.uploads import changes as bot_changes
from league.arena.uploads.house import house_version


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_superuser("root", password="x")


@pytest.fixture
def cup(db):
    tournament = Tournament.objects.create(name="House Cup", games_per_pairing=2)
    for ref in ("house:greedy", "house:random", "house:expert"):
        TournamentEntry.objects.create(tournament=tournament, bot=house_version(ref).bot)
    return tournament


def action_url(tournament, name):
    return reverse("tournament-action", args=[tournament.pk, name])


def test_staff_see_the_buttons_on_the_tournament_page_and_others_do_not(client, cup, staff, alice):
    page = client.get(cup.get_absolute_url()).content.decode()
    assert action_url(cup, "start") not in page
    client.force_login(alice)
    assert action_url(cup, "start") not in client.get(cup.get_absolute_url()).content.decode()
    assert client.get(action_url(cup, "start")).status_code == 302  # to the admin's login
    assert client.post(action_url(cup, "start")).status_code == 302
    cup.refresh_from_db()
    assert cup.status == "draft"

    client.force_login(staff)
    page = client.get(cup.get_absolute_url()).content.decode()
    for shown in ("start", "add-all", "open-registration", "cancel"):
        assert action_url(cup, shown) in page
    for hidden in ("rerun-failed", "close-registration"):
        assert action_url(cup, hidden) not in page


def test_an_action_asks_first_then_needs_a_csrf_token(cup, staff, sent):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    confirm = client.get(action_url(cup, "start"))
    text = confirm.content.decode()
    assert "Start now: " in text and "Yes: start now" in text and 'method="post"' in text
    cup.refresh_from_db()
    assert cup.status == "draft"  # looking at the confirmation did nothing
    assert client.post(action_url(cup, "start")).status_code == 403  # no CSRF token
    token = confirm.cookies["csrftoken"].value
    response = client.post(action_url(cup, "start"), {"csrfmiddlewaretoken": token}, follow=True)
    assert response.redirect_chain[-1][0] == cup.get_absolute_url()
    assert "House Cup: started: 3 matches queued." in response.content.decode()
    cup.refresh_from_db()
    assert cup.status == "running"


def test_an_unknown_action_is_404_and_a_refused_one_says_why(client, cup, staff):
    client.force_login(staff)
    assert client.get(action_url(cup, "explode")).status_code == 404
    response = client.post(action_url(cup, "rerun-failed"), follow=True)
    assert "Re-run failed matches: not done: House Cup has not started: only a started one" in response.content.decode()


def test_from_the_admin_the_action_returns_to_the_admin(client, cup, staff):
    client.force_login(staff)
    admin_page = client.get(reverse("admin:arena_tournament_change", args=[cup.pk])).content.decode()
    assert f"{action_url(cup, 'add-all')}?from=admin" in admin_page
    assert 'name="from" value="admin"' in client.get(f"{action_url(cup, 'add-all')}?from=admin").content.decode()
    response = client.post(action_url(cup, "add-all"), {"from": "admin"})
    assert response["Location"] == reverse("admin:arena_tournament_change", args=[cup.pk])


def test_cancel_withdraws_queued_matches_and_drops_a_running_ones_result(cup, sent, monkeypatch):
    started = tournaments.start(cup.pk)
    playing = started[0]
    real_run = bots.match.run_match

    def cancelled_meanwhile(spec, on_game=None):
        result = real_run(spec, on_game=on_game)
        assert tournament_ops.cancel(cup.pk) == 3  # the one being played and the two queued
        return result

    monkeypatch.setattr(bots.match, "run_match", cancelled_meanwhile)
    assert matches.play(playing.pk, worker="test:1") is False
    assert not Game.objects.filter(match__tournament=cup).exists()
    assert set(cup.matches.values_list("status", flat=True)) == {"cancelled"}
    assert not Match.objects.filter(tournament=cup, claim_token__isnull=False).exists()
    cup.refresh_from_db()
    assert cup.status == "cancelled" and cup.finished_at is not None and cup.progress() == (0, 6)
    monkeypatch.setattr(bots.match, "run_match", real_run)
    assert matches.play(started[1].pk, worker="test:2") is False  # a withdrawn match is never claimed
    with pytest.raises(tournament_ops.NotAllowed, match="nothing to cancel"):
        tournament_ops.cancel(cup.pk)
    assert tournaments.start(cup.pk) == []  # a cancelled tournament never starts again


def test_cancelling_a_scheduled_draft_keeps_it_from_starting(cup):
    from datetime import timedelta

    from django.utils import timezone

    Tournament.objects.filter(pk=cup.pk).update(scheduled_at=timezone.now() - timedelta(seconds=1))
    assert tournament_ops.cancel(cup.pk) == 0
    assert tournaments.start_due() == 0
    cup.refresh_from_db()
    assert cup.status == "cancelled" and not cup.matches.exists()


def test_rerun_queues_failed_matches_again_and_reopens_a_finished_tournament(
    cup, sent, django_capture_on_commit_callbacks
):
    started = tournaments.start(cup.pk)
    for match in started[1:]:
        assert matches.play(match.pk, worker="test:1")
    Match.objects.filter(pk=started[0].pk).update(
        status="failed", error="attempt 3: the match runner failed", attempts=3, claimed_by="test:1"
    )
    assert tournaments.finish_if_done(cup.pk)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert tournament_ops.rerun_failed(cup.pk) == 1
    again = Match.objects.get(pk=started[0].pk)
    assert (again.status, again.attempts, again.error, again.claimed_by) == ("queued", 0, "", "")
    assert ("play_match", (again.pk,)) in sent
    cup.refresh_from_db()
    assert cup.status == "running" and cup.finished_at is None
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.play(again.pk, worker="test:2")
        tournaments.finish_if_done(cup.pk)
    cup.refresh_from_db()
    assert cup.status == "finished" and cup.progress() == (6, 6)
    with pytest.raises(tournament_ops.NotAllowed, match="no failed matches"):
        tournament_ops.rerun_failed(cup.pk)


def await_a_session_waiting_for_a_lock(timeout: float = 10) -> None:
    """Until another session of this database waits for a lock that this one holds (PostgreSQL)."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # the view is read afresh, not once per transaction
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            assert time.monotonic() < deadline, f"no session waited for a lock within {timeout:.0f} s"
            time.sleep(0.01)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite runs one writer at a time: nothing interleaves")
def test_a_late_finish_task_waits_for_a_rerun_and_leaves_the_tournament_running(cup, sent):
    started = tournaments.start(cup.pk)
    Match.objects.filter(pk__in=[m.pk for m in started]).update(status="done")
    Match.objects.filter(pk=started[0].pk).update(status="failed", error="attempt 1: the match runner failed")
    finished: list[bool] = []

    def finish_task() -> None:  # a finish_tournament task queued by the last failure, running late
        try:
            finished.append(tournaments.finish_if_done(cup.pk))
        finally:
            connections.close_all()

    with transaction.atomic():
        assert tournament_ops.rerun_failed(cup.pk) == 1
        late = threading.Thread(target=finish_task)
        late.start()
        await_a_session_waiting_for_a_lock()  # the task is at the tournament's row while the re-run is uncommitted
    late.join(10)
    assert finished == [False]
    cup.refresh_from_db()
    assert cup.status == "running" and Match.objects.get(pk=started[0].pk).status == "queued"


def test_owners_enter_their_active_bots_while_registration_is_open(client, staff, alice, bob, make_version):
    mine = make_version(alice, "mine")
    failing = make_version(alice, "failing", status="failed")
    coop = make_version(alice, "coop", game="the-game")
    theirs = make_version(bob, "theirs")
    retired = make_version(alice, "retired")
    bot_changes.retire(retired.bot)
    cup = Tournament.objects.create(name="Open Cup")
    client.force_login(alice)
    enter = reverse("tournament-enter", args=[cup.pk])
    assert (
        "registration for Open Cup is closed" in client.post(enter, {"bot": mine.bot.pk}, follow=True).content.decode()
    )

    tournament_ops.set_registration(cup.pk, True)
    page = client.get(cup.get_absolute_url()).content.decode()
    assert "Registration is open" in page and f'value="{mine.bot.pk}"' in page
    for other in (failing, coop, theirs, retired):
        assert f'<option value="{other.bot.pk}"' not in page
    assert "Choose one of your own bots" in client.post(enter, {"bot": theirs.bot.pk}, follow=True).content.decode()
    assert "Choose one of your own bots" in client.post(enter, {"bot": "x"}, follow=True).content.decode()
    assert "has no active version yet" in client.post(enter, {"bot": failing.bot.pk}, follow=True).content.decode()
    assert "plays The Game, not" in client.post(enter, {"bot": coop.bot.pk}, follow=True).content.decode()
    assert "is retired or disabled" in client.post(enter, {"bot": retired.bot.pk}, follow=True).content.decode()
    assert "mine is entered in Open Cup." in client.post(enter, {"bot": mine.bot.pk}, follow=True).content.decode()
    assert "already entered" in client.post(enter, {"bot": mine.bot.pk}, follow=True).content.decode()
    assert list(cup.entries.values_list("bot__name", flat=True)) == ["mine"]

    client.force_login(staff)
    client.post(action_url(cup, "close-registration"))
    cup.refresh_from_db()
    assert not cup.registration_open


def test_starting_closes_registration(alice, bob, make_version, sent):
    cup = Tournament.objects.create(name="Cup", registration_open=True)
    for version in (make_version(alice, "a"), make_version(bob, "b")):
        TournamentEntry.objects.create(tournament=cup, bot=version.bot)
    tournaments.start(cup.pk)
    cup.refresh_from_db()
    assert not cup.registration_open
    with pytest.raises(tournament_ops.NotAllowed, match="cannot open again"):
        tournament_ops.set_registration(cup.pk, True)


def test_a_cancelled_tournament_page_says_so(client, cup, sent):
    tournaments.start(cup.pk)
    tournament_ops.cancel(cup.pk)
    page = client.get(cup.get_absolute_url()).content.decode()
    assert "cancelled" in page and "3</strong> withdrawn" in page and "0 of 6 games played" in page
