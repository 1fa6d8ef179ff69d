"""Recovering from faults without waiting for a lease: heartbeats from a thread, the upkeep, retries, lost sends.

The end-to-end proof (real PostgreSQL, Redis and workers, each fault injected) is tests/faults/test_faults.py.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from datetime import timedelta

import kombu.exceptions
import pytest
from django.db import OperationalError
from django.utils import timezone

import bots.match
from games import Termination
from league.arena import queue, tasks
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.lib import heartbeats, retrying
from league.arena.models import Match, RatingFit, Tournament
from league.arena.ops import upkeep
from league.arena.play import matches
from league.arena.tournaments import starting as tournaments
from league.arena.uploads.house import house_version


def ladder_match(**fields) -> Match:
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    fields = {"kind": "ladder", "game": "face-to-face", "games": 1, "seed": "s", **fields}
    return Match.objects.create_with_entries([greedy, rnd], **fields)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """committed(f): f() with the tasks it sends on commit sent (this test's transaction never commits)."""

    def call(function):
        with django_capture_on_commit_callbacks(execute=True):
            return function()

    return call


@pytest.fixture
def no_sleep(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(retrying.time, "sleep", waits.append)
    return waits


def test_a_heartbeat_keeps_coming_while_a_game_lasts_and_stops_when_the_claim_is_gone(transactional_db):
    match = ladder_match()
    token = match.claim("host:1", matches.lease())
    claimed_at = Match.objects.get(pk=match.pk).heartbeat_at
    with heartbeats.Heartbeat(lambda: match.heartbeat(token, 0, matches.lease()), "match", every=0.05) as heartbeat:
        # One long game: no checkpoint is reached, yet the heartbeat moves on.
        deadline = time.monotonic() + 10
        while Match.objects.get(pk=match.pk).heartbeat_at == claimed_at and time.monotonic() < deadline:
            time.sleep(0.05)
        assert Match.objects.get(pk=match.pk).heartbeat_at > claimed_at
        Match.objects.filter(pk=match.pk).update(claim_token=None)  # another worker took it over
        assert heartbeat.lost.wait(2)


def test_a_heartbeat_rides_out_a_database_error(transactional_db, caplog):
    answers = iter([OperationalError("server closed the connection unexpectedly"), True])
    beats: list[bool] = []

    def beat() -> bool:
        answer = next(answers, True)
        if isinstance(answer, Exception):
            raise answer
        beats.append(answer)
        return answer

    with caplog.at_level(logging.WARNING), heartbeats.Heartbeat(beat, "match 7", every=0.02) as heartbeat:
        deadline = time.monotonic() + 10
        while len(beats) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert beats and not heartbeat.lost.is_set()
    assert "match 7: heartbeat not sent: database unavailable (OperationalError" in caplog.text
    assert "match 7: heartbeat sent again" in caplog.text


def test_a_holder_that_sees_its_own_gap_exceed_the_lease_gives_up(monkeypatch, caplog):
    clock = {"now": 100.0}
    monkeypatch.setattr(heartbeats.time, "monotonic", lambda: clock["now"])
    beats: list[float] = []
    heartbeat = heartbeats.Heartbeat(lambda: beats.append(clock["now"]) or True, "match 9", every=0.01, lease=5.0)

    def wait(seconds: float) -> bool:
        clock["now"] += 1.0 if len(beats) < 2 else 20.0  # two beats on time, then the process is frozen for 20 s
        return False

    monkeypatch.setattr(heartbeat._stop, "wait", wait)
    with caplog.at_level(logging.WARNING):
        heartbeat._run()  # as its thread runs it
    assert beats == [101.0, 102.0] and heartbeat.lost.is_set()
    assert heartbeat.stalled_since(102.0) and not heartbeat.stalled_since(122.0)
    assert "match 9: this process stood still for 20.0 s" in caplog.text
    assert "match 9: no heartbeat for 20.0 s, past the 5 s lease: the work is given up" in caplog.text


def test_a_turn_timed_out_across_a_worker_stall_is_replayed_not_charged(db, sent, monkeypatch, committed):
    match = ladder_match(games=2)
    real = bots.match.run_match

    def timed_out(spec, on_game):
        def seen(result):
            outcome = dataclasses.replace(result.outcome, termination=Termination.TIMEOUT, seat=0)
            on_game(dataclasses.replace(result, outcome=outcome))

        return real(spec, on_game=seen)

    monkeypatch.setattr(bots.match, "run_match", timed_out)
    stalls = {"seen": False}
    monkeypatch.setattr(heartbeats.Heartbeat, "stalled_since", lambda self, moment: stalls["seen"])
    with pytest.raises(ValueError):  # no stall: the timeout is the bot's, and stored as such
        with monkeypatch.context() as patch:
            patch.setattr(matches, "store", lambda *args: (_ for _ in ()).throw(ValueError("stored as played")))
            matches.play(match.pk, worker="w1@host:1")
    Match.objects.filter(pk=match.pk).update(status="queued", attempts=0, failures=0, claim_token=None)
    sent.clear()
    stalls["seen"] = True  # the heartbeat thread saw the whole worker stand still during the game
    assert committed(lambda: matches.play(match.pk, worker="w1@host:1")) is False
    match.refresh_from_db()
    assert (match.status, match.attempts, match.failures) == ("queued", 0, 0)
    assert "game 0 timed out while the whole worker stood still" in match.error
    assert sent == [("play_match", (match.pk,))]
    assert not match.played_games.exists()


def test_a_match_whose_worker_stopped_beating_is_resent_within_the_lease(db, sent, committed, monkeypatch, caplog):
    monkeypatch.setattr(queue, "waiting", lambda name: 0)
    now = timezone.now()
    dead = ladder_match(
        status="running",
        claimed_by="host:41",
        heartbeat_at=now - timedelta(seconds=11),
        queued_at=now - timedelta(seconds=30),
    )
    ladder_match(
        status="running",
        claimed_by="host:42",
        heartbeat_at=now - timedelta(seconds=3),
        queued_at=now - timedelta(seconds=30),
    )
    with caplog.at_level(logging.WARNING):
        assert committed(matches.requeue_lost) == 1
    assert sent == [("play_match", (dead.pk,))]
    # 11 s when the upkeep ran at once, more on a machine that kept it waiting
    assert re.search(
        rf"match {dead.pk}: worker host:41 sent no heartbeat for \d+ s \(killed\?\); match re-sent", caplog.text
    )
    assert int(re.search(r"no heartbeat for (\d+) s", caplog.text)[1]) >= 11
    assert matches.requeue_lost() == 0  # once a lease


def test_queued_matches_are_resent_only_when_their_queue_is_empty(db, sent, committed, monkeypatch, caplog):
    waiting = {"count": 5}
    monkeypatch.setattr(queue, "waiting", lambda name: waiting["count"])
    old = timezone.now() - timedelta(seconds=11)
    lost = ladder_match(queued_at=old)
    ladder_match()  # just queued: its message may still be on its way
    assert matches.requeue_lost() == 0  # messages wait in the queue: this one's may be among them
    waiting["count"] = 0
    with caplog.at_level(logging.WARNING):
        assert committed(matches.requeue_lost) == 1
    assert sent == [("play_match", (lost.pk,))]
    assert "re-sent 1 queued matches whose message was lost" in caplog.text
    waiting["count"] = None  # the broker cannot be read: nothing is sent blind
    Match.objects.filter(pk=lost.pk).update(queued_at=old)
    assert matches.requeue_lost() == 0


def test_the_broker_queue_length_is_read(db):
    name = f"fault-recovery-{time.monotonic_ns()}"
    assert queue.waiting(name) == 0  # a queue nobody declared yet
    with queue.app.connection_for_write() as connection:
        messages = connection.SimpleQueue(name)
        messages.put({"match": 1})
        assert queue.waiting(name) == 1
        messages.get(timeout=10).ack()
        assert queue.waiting(name) == 0
        messages.close()


@pytest.fixture
def broker_kept_its_messages(monkeypatch):
    """The broker's mark is there (whatever other tests did to the Redis they share): nothing is presumed lost."""
    monkeypatch.setattr(queue, "broker_restarted_at", lambda: None)


def test_the_upkeep_sends_everything_again_at_once_when_the_broker_started_empty(db, sent, committed, monkeypatch):
    match = ladder_match(kind="tournament")  # queued a moment ago: its message was in the Redis that was lost
    RatingFit.objects.create(game="face-to-face", pending=True, refit_due_at=timezone.now() + timedelta(seconds=1))
    monkeypatch.setattr(queue, "waiting", lambda name: 0)
    monkeypatch.setattr(queue, "broker_restarted_at", lambda: None)
    done = committed(upkeep.run)
    assert (done["matches re-sent"], done["refits resumed"]) == (0, 0)
    assert sent == []  # too fresh to be presumed lost, while the broker says it kept its messages
    monkeypatch.setattr(queue, "broker_restarted_at", timezone.now)
    done = committed(upkeep.run)
    assert (done["matches re-sent"], done["refits resumed"]) == (1, 1)
    assert sorted(sent) == [("play_match", (match.pk,)), ("refit_ratings", ("face-to-face",))]


def test_the_upkeep_finishes_a_tournament_whose_finish_task_was_lost(db, sent, broker_kept_its_messages):
    tournament = Tournament.objects.create(name="cup", status="running")
    match = ladder_match(tournament=tournament, kind="tournament", status="done")
    assert upkeep.run()["tournaments finished"] == 1
    tournament.refresh_from_db()
    assert tournament.status == "finished" and match.status == "done"
    busy = Tournament.objects.create(name="busy", status="running")
    ladder_match(tournament=busy, kind="tournament", status="running", heartbeat_at=timezone.now())
    assert tournaments.finish_all_done() == 0
    busy.refresh_from_db()
    assert busy.status == "running"


def test_the_upkeep_resumes_a_refit_whose_worker_died(db, sent, committed, broker_kept_its_messages):
    RatingFit.objects.create(game="face-to-face", pending=True, claim_token=None)
    assert committed(upkeep.run)["refits resumed"] == 1
    assert ("refit_ratings", ("face-to-face",)) in sent
    sent.clear()
    RatingFit.objects.filter(game="face-to-face").update(
        claim_token="00000000-0000-0000-0000-000000000001", claimed_at=timezone.now()
    )
    assert upkeep.run()["refits resumed"] == 0  # a live refit covers it
    RatingFit.objects.filter(game="face-to-face").update(
        claimed_at=timezone.now() - refits.LEASE - timedelta(seconds=1),
        refit_due_at=None,  # the refit sent was taken
    )
    assert committed(upkeep.run)["refits resumed"] == 1  # its heartbeat stopped: presumed dead
    RatingFit.objects.filter(game="face-to-face").update(claim_token=None)
    assert upkeep.run()["refits resumed"] == 0  # the refit just sent again is on its way
    RatingFit.objects.filter(game="face-to-face").update(
        refit_due_at=timezone.now() - refits.SENT_GRACE - timedelta(seconds=1)
    )
    assert committed(upkeep.run)["refits resumed"] == 1  # due, and not taken for a grace: its message was lost


def test_the_upkeep_refits_again_what_a_refit_that_died_had_read(db, sent, committed, broker_kept_its_messages):
    # A refit clears `pending` before it reads the pairs; it died before storing its whole fit (intervals included).
    RatingFit.objects.create(
        game="face-to-face",
        pending=False,
        claim_token="00000000-0000-0000-0000-000000000001",
        claimed_at=timezone.now() - refits.LEASE - timedelta(seconds=1),
    )
    assert committed(upkeep.run)["refits resumed"] == 1
    assert ("refit_ratings", ("face-to-face",)) in sent
    assert RatingFit.objects.get(game="face-to-face").pending is True  # so the refit sent can claim it
    RatingFit.objects.filter(game="face-to-face").update(pending=False, claimed_at=timezone.now())
    assert upkeep.run()["refits resumed"] == 0  # a live refit is left alone


def test_calls_are_retried_with_backoff_on_database_errors(no_sleep, caplog):
    outcomes = iter([OperationalError("connection refused"), kombu.exceptions.OperationalError("Error 111"), "stored"])

    def flaky() -> str:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    with caplog.at_level(logging.WARNING):
        assert retrying.call(flaky, "match 5: storing") == "stored"
    assert len(no_sleep) == 2 and no_sleep[0] < no_sleep[1] <= retrying.MAX_DELAY * 1.2
    assert "match 5: storing: database unavailable (OperationalError: connection refused); retry 1 in" in caplog.text
    assert "match 5: storing: broker unavailable (OperationalError: Error 111); retry 2 in" in caplog.text


def test_other_errors_are_not_retried(no_sleep):
    def broken() -> None:
        raise ValueError("a bug")

    with pytest.raises(ValueError):
        retrying.call(broken, "x")
    assert no_sleep == []


def test_a_task_retries_in_place_instead_of_failing(db, no_sleep, monkeypatch):
    calls: list[RatingPool] = []

    def refit(pool: RatingPool, worker: str = "") -> int:
        calls.append(pool)
        if len(calls) < 3:
            raise OperationalError("the database system is starting up")
        return 1

    monkeypatch.setattr(refits, "run", refit)
    tasks.refit_ratings("face-to-face")  # as the worker calls it: no exception reaches Celery
    assert calls == [RatingPool.ladder("face-to-face")] * 3 and len(no_sleep) == 2


def test_a_send_that_fails_after_commit_is_logged_not_raised(
    db, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    class Unreachable:
        def apply_async(self) -> None:
            raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(queue.app, "signature", lambda *args, **kwargs: Unreachable())
    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        queue.finish_tournament(12)
    assert "finish_tournament(12) not sent: broker unavailable" in caplog.text
    assert "the upkeep re-derives it from the database" in caplog.text


def test_worker_logs_carry_time_and_level(settings):
    formatter = logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"])
    line = formatter.format(
        logging.LogRecord("league.arena.play.matches", logging.WARNING, "", 0, "match 3: re-sent", None, None)
    )
    assert line.split(" ")[2] == "WARNING" and line.endswith("league.arena.play.matches: match 3: re-sent")


def test_a_match_that_met_a_database_error_is_handed_back_at_once(db, sent, monkeypatch):
    match = ladder_match()

    def unreadable(match, versions):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(matches, "match_spec", unreadable)
    with pytest.raises(OperationalError):
        matches.play(match.pk, worker="host:1")
    match.refresh_from_db()
    assert (match.status, match.claim_token) == ("queued", None)  # claimable by the task's retry, no lease to wait
    assert "database unavailable" in match.error


def test_a_refit_that_met_a_database_error_hands_its_claim_back(db, monkeypatch):
    RatingFit.objects.create(game="face-to-face", pending=True)

    def unreadable(game):
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(refits, "read_counts", unreadable)
    with pytest.raises(OperationalError):
        refits.run(RatingPool.ladder("face-to-face"))
    state = RatingFit.objects.get(game="face-to-face")
    assert state.claim_token is None and state.pending  # the retry claims it at once
