"""The upkeep re-sends matches whose worker died or whose message was lost, once per lease."""

from datetime import timedelta

import pytest
from django.utils import timezone

from league.arena import queue
from league.arena.models import Match
from league.arena.play import matches


@pytest.fixture(autouse=True)
def _empty_queues(monkeypatch):
    """No message waits in the broker (whatever other tests left there): queued matches this old are lost."""
    monkeypatch.setattr(queue, "waiting", lambda name: 0)


def test_it_resends_lost_matches_once(db, sent, settings, django_capture_on_commit_callbacks):
    settings.ARENA_MATCH_LEASE_SECONDS = 60
    old = timezone.now() - timedelta(seconds=61)
    fresh = Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="a")
    waiting = Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="b", queued_at=old)
    dead = Match.objects.create(
        kind="ladder", game="face-to-face", games=1, seed="c", queued_at=old, status="running", heartbeat_at=old
    )
    alive = Match.objects.create(
        kind="ladder",
        game="face-to-face",
        games=1,
        seed="d",
        queued_at=old,
        status="running",
        heartbeat_at=timezone.now(),
    )
    Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="e", queued_at=old, status="done")
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost() == 2
    assert sorted(sent) == sorted([("play_match", (waiting.pk,)), ("play_match", (dead.pk,))])
    assert matches.requeue_lost() == 0  # stamped: not again until another lease has passed
    assert fresh.pk and alive.pk


def test_a_lost_validation_goes_back_to_the_validation_queue(db, sent, settings, django_capture_on_commit_callbacks):
    settings.ARENA_MATCH_LEASE_SECONDS = 60
    old = timezone.now() - timedelta(seconds=61)
    lost = Match.objects.create(kind="validation", game="face-to-face", games=1, seed="v", queued_at=old)
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost() == 1
    assert sent == [("play_validation", (lost.pk,))]


def test_a_dead_match_goes_back_to_the_queue_ahead_of_fresh_ones_and_is_sent_once(
    db, sent, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.ARENA_MATCH_LEASE_SECONDS = 5
    old = timezone.now() - timedelta(seconds=30)
    dead = Match.objects.create(
        kind="tournament", game="face-to-face", games=1, seed="c", queued_at=old, status="running", heartbeat_at=old,
        claimed_by="w1@host:7", claim_token="00000000-0000-0000-0000-000000000007", attempts=1,
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost() == 1
    dead.refresh_from_db()
    assert (dead.status, dead.claim_token, dead.attempts) == ("queued", None, 1)  # shown waiting, not running
    assert dead.resent_at is not None and "worker w1@host:7 sent no heartbeat for 30 s" in dead.error
    assert sent == [("play_match", (dead.pk,))] and sent.options[0]["priority"] == queue.RESEND_PRIORITY
    monkeypatch.setattr(queue, "waiting", lambda name: 1)  # its re-send still waits in the queue
    Match.objects.filter(pk=dead.pk).update(queued_at=old)
    assert matches.requeue_lost() == 0


def test_a_planned_retry_keeps_its_backoff(db, sent, settings, django_capture_on_commit_callbacks):
    match = Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="r")
    token = match.claim("w1@host:7", timedelta(seconds=5))
    assert match.release(token, "attempt 1: the match runner failed", give_up=False, retry_in=20)
    Match.objects.filter(pk=match.pk).update(queued_at=timezone.now() - timedelta(seconds=10))
    assert matches.requeue_lost() == 0  # its retry is held by a worker for its countdown: not lost
    Match.objects.filter(pk=match.pk).update(retry_due_at=timezone.now() - timedelta(seconds=10))
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost() == 1  # due long ago and nowhere in the queue: its message was lost
    assert sent.options == [{"countdown": None, "priority": queue.RESEND_PRIORITY}]


def test_on_redis_a_resent_match_is_taken_before_fresh_ones(settings):
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("priorities are Redis's; the filesystem broker of development has none")
    name = settings.CELERY_TASK_DEFAULT_QUEUE
    with queue.app.connection_for_write() as connection:
        channel = connection.default_channel
        channel.queue_purge(name)
        try:
            queue._send(queue.PLAY_MATCH, (1,), None)
            queue._send(queue.PLAY_MATCH, (2,), None)
            queue._send(queue.PLAY_MATCH, (3,), None, queue.RESEND_PRIORITY)
            taken = [channel.basic_get(name, no_ack=True).headers["argsrepr"] for _ in range(3)]
        finally:
            channel.queue_purge(name)
    assert taken == ["(3,)", "(1,)", "(2,)"]


def test_when_the_broker_started_empty_every_match_queued_before_is_sent_again_at_once(
    db, sent, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.ARENA_MATCH_LEASE_SECONDS = 5
    just_sent = Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="a")  # queued a moment ago
    scrim = Match.objects.create(kind="scrim", game="face-to-face", games=1, seed="b")
    retry = Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="c")
    token = retry.claim("w1@host:7", timedelta(seconds=5))
    assert retry.release(token, "attempt 1: the match runner failed", give_up=False, retry_in=20)
    running = Match.objects.create(
        kind="ladder", game="face-to-face", games=1, seed="d", status="running", heartbeat_at=timezone.now()
    )
    broker_started = timezone.now()
    since = Match.objects.create(kind="ladder", game="face-to-face", games=1, seed="e")  # sent to the new broker
    monkeypatch.setattr(queue, "waiting", lambda name: 1)  # the queue holds messages again (sent since the loss)
    assert matches.requeue_lost() == 0  # the broker kept its messages: these were sent a moment ago
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost(broker_started) == 3
    assert sorted(sent) == sorted(
        [("play_match", (just_sent.pk,)), ("play_scrim", (scrim.pk,)), ("play_match", (retry.pk,))]
    )
    assert all(options["priority"] == queue.RESEND_PRIORITY for options in sent.options)
    countdowns = {args[0]: options["countdown"] for (_, args), options in zip(sent, sent.options, strict=True)}
    assert countdowns[just_sent.pk] is None and countdowns[scrim.pk] is None
    assert 15 < countdowns[retry.pk] <= 20  # the planned retry keeps the rest of its backoff
    assert Match.objects.get(pk=running.pk).status == "running"  # alive: its worker plays on and stores it
    assert since.pk not in countdowns  # its message is in the broker that started empty
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost() == 0  # not again while those re-sends wait in the queue
    assert sent == []


def test_the_broker_tells_once_when_it_started_empty(settings):
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        assert queue.broker_restarted_at() is None  # the filesystem broker of development cannot tell
        return
    with queue.app.connection_for_write() as connection:
        client = connection.default_channel.client
        client.set(queue.BROKER_MARK, "before")
        assert queue.broker_restarted_at() is None  # the mark is there: Redis kept its data
        client.delete(queue.BROKER_MARK)  # as a Redis restarted empty, or a new one, has none
        started = queue.broker_restarted_at()
        uptime = client.info("server")["uptime_in_seconds"]
        assert started is not None and client.get(queue.BROKER_MARK) is not None
        assert abs((timezone.now() - started).total_seconds() - uptime) <= 2
        assert queue.broker_restarted_at() is None  # told once
