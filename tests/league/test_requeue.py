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
