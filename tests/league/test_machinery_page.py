"""The staff's machinery page: queue lengths from the broker, running matches and their workers, heartbeats,
the last hour's failures with reasons, and the last rating refit of each ladder."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from league.arena.models import Match, RatingFit
from league.arena.ops import machinery
from league.arena.uploads.house import house_version
from league.celery import app


@pytest.fixture
def staff_client(client, db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    return client


def a_match(**fields):
    versions = [house_version("house:greedy"), house_version("house:random")]
    return Match.objects.create_with_entries(versions, kind="ladder", game="face-to-face", games=10, seed="s", **fields)


def test_only_staff_see_it(client, alice):
    assert client.get(reverse("machinery")).status_code == 302
    client.force_login(alice)
    assert client.get(reverse("machinery")).status_code == 302


def test_queue_lengths_are_what_the_broker_holds(db):
    name = settings.CELERY_TASK_DEFAULT_QUEUE
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(name)
        before = {q.name: q.messages for q in machinery.queue_lengths()}
        assert before[name] == 0 and set(before) == {q.name for q in settings.CELERY_TASK_QUEUES}
        for _ in range(2):
            app.signature("league.arena.tasks.refit_ratings", args=("face-to-face",)).apply_async(queue=name)
        try:
            after = {q.name: q.messages for q in machinery.queue_lengths()}
        finally:
            connection.default_channel.queue_purge(name)
    assert after[name] == 2 and after[settings.ARENA_VALIDATION_QUEUE] == before[settings.ARENA_VALIDATION_QUEUE]


def test_a_broker_that_does_not_answer_is_reported_not_raised(staff_client, monkeypatch):
    def down():
        raise ConnectionRefusedError("connection refused")

    monkeypatch.setattr(machinery.app, "connection_for_read", down)
    page = staff_client.get(reverse("machinery")).content.decode()
    assert "the broker did not answer: connection refused" in page and "unknown" in page


def test_it_shows_running_matches_workers_failures_and_refits(staff_client, settings):
    now = timezone.now()
    settings.ARENA_MATCH_LEASE_SECONDS = 60
    running = a_match(status="running", claimed_by="alpha@host:11", started_at=now, heartbeat_at=now, games_done=3)
    stuck = a_match(
        status="running",
        claimed_by="beta@host:12",
        started_at=now - timedelta(minutes=9),
        heartbeat_at=now - timedelta(minutes=5),
    )
    a_match(status="failed", error="attempt 3: the match runner failed: OSError('disk full')", finished_at=now)
    a_match(status="queued", error="attempt 1: the match runner failed: TimeoutError()", attempts=1, queued_at=now)
    a_match(
        status="failed",
        error="an old failure",
        finished_at=now - timedelta(hours=2),
        queued_at=now - timedelta(hours=2),
    )
    a_match(status="cancelled", error="withdrawn: the tournament was cancelled", finished_at=now)
    RatingFit.objects.create(game="face-to-face", games=42, fitted_at=now - timedelta(minutes=3))

    page = staff_client.get(reverse("machinery")).content.decode()
    assert f"#{running.pk}" in page and "alpha@host:11" in page and "3 of 10" in page
    beats = {beat.name: beat for beat in machinery.worker_beats()}
    assert set(beats) == {"alpha@host:11", "beta@host:12"}
    assert not beats["alpha@host:11"].silent and beats["beta@host:12"].silent and beats["beta@host:12"].running == 1
    assert "silent" in page and f"#{stuck.pk}" in page
    assert "OSError(&#x27;disk full&#x27;)" in page and "TimeoutError()" in page
    assert "an old failure" not in page and "withdrawn: the tournament" not in page
    assert "Failures in the last hour (2)" in page
    assert "The Game: Face to Face" in page and "42" in page
    for queue in settings.CELERY_TASK_QUEUES:
        assert queue.name in page


def test_coop_ladders_are_named_after_their_season(db):
    from league.arena.models import Season

    season = Season.objects.create(game="the-game", number=1, seed="s1", current=True)
    RatingFit.objects.create(game=f"coop:{season.pk}:2", games=5)
    (fit,) = machinery.refit_times()
    assert fit.ladder == "The Game season 1, teams of 2" and fit.fitted_at is None


def test_a_match_is_claimed_under_the_celery_nodes_name_or_the_host_outside_a_worker(db, monkeypatch):
    import os
    import socket
    from types import SimpleNamespace

    import bots.match
    from league.arena import tasks

    in_a_worker = SimpleNamespace(request=SimpleNamespace(hostname="w7@rack-3"))  # started with --hostname w7@%h
    assert tasks.player_name(in_a_worker) == f"w7@rack-3:{os.getpid()}"
    monkeypatch.setattr(bots.match, "run_match", lambda spec, on_game: bots.match.MatchResult(spec, [], {}, 0.0))
    match = a_match(status="queued")
    tasks.play_match(match.pk)  # called as a function: no worker, no node name
    match.refresh_from_db()
    assert match.claimed_by == f"{socket.gethostname()}:{os.getpid()}"


def test_the_page_updates_itself_from_its_live_fragment(client, staff_client):
    page = staff_client.get(reverse("machinery")).content.decode()
    live_url = reverse("machinery-live")
    assert f'data-live="on" data-live-every="5000" data-live-url="{live_url}"' in page
    running = a_match(status="running", claimed_by="gamma@host:13", started_at=timezone.now())
    fragment = staff_client.get(live_url).content.decode().strip()
    assert fragment.startswith('<section id="machinery"') and fragment.endswith("</section>")  # what site.js swaps
    assert f"#{running.pk}" in fragment and "gamma@host:13" in fragment and "<h1>" not in fragment
    client.logout()
    assert client.get(live_url).status_code == 302  # staff only, like the page
