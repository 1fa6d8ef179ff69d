"""A worker frozen mid-transaction (SIGSTOP, a paused VM) keeps nobody waiting on its row locks: neither the other
workers' stores nor the upkeep (issue 21's freeze drill: w2 stood still for all 8 s of w1's freeze)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from league.arena import queue
from league.arena.lib import heartbeats, retrying
from league.arena.models import Match, SeatResult
from league.arena.play import events, matches, results
from league.arena.uploads.house import house_version

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and their bounds: PostgreSQL")


def ladder_match(**fields) -> tuple[Match, list]:
    versions = [house_version("house:greedy"), house_version("house:random")]
    fields = {"kind": "ladder", "game": "face-to-face", "games": 1, "seed": "s", **fields}
    return Match.objects.create_with_entries(versions, **fields), versions


def in_thread(work) -> tuple[threading.Thread, dict]:
    """work() in a thread of its own (its own database connection); the answer has its result and its seconds."""
    answer: dict = {}

    def run() -> None:
        began = time.monotonic()
        try:
            answer["result"] = work()
        finally:
            answer["seconds"] = time.monotonic() - began
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, answer


def test_a_store_frozen_mid_way_is_ended_so_that_no_other_writer_waits_for_it(
    transactional_db, sent, settings, monkeypatch, played_game
):
    settings.ARENA_STORE_IDLE_SECONDS = 0.3
    match, versions = ladder_match()
    token = match.claim("w1@host:1", matches.lease())
    real = events.send_match_stored
    waiting: list = []

    def another_store() -> int:  # of another match of the first version, in its seat
        with transaction.atomic():
            results.add_to_seats({(versions[0].pk, 0): Counter(games=1, wins=1)})
        return 1

    def frozen(*args, **kwargs) -> None:
        # Another worker's store now writes a row this store holds locked; then this worker stands still for 1.5 s.
        waiting.append(in_thread(another_store))
        time.sleep(1.5)
        real(*args, **kwargs)

    monkeypatch.setattr(events, "send_match_stored", frozen)
    with pytest.raises(retrying.DATABASE_ERRORS):  # a passing error: the store is tried again under its checks
        matches.store(match, token, versions, SimpleNamespace(games=[played_game(0, 1)], stderr={}))
    ((thread, answer),) = waiting
    thread.join(10)
    assert answer["result"] == 1
    assert answer["seconds"] < 1.0  # the frozen store's locks went at its bound, not when it ran again
    match.refresh_from_db()
    assert match.status == "running" and not match.played_games.exists()
    assert SeatResult.objects.get(version=versions[0], seat=0).games == 1  # the other store's game alone


def test_a_worker_resumed_past_its_lease_mid_store_gives_the_match_up_at_once(
    transactional_db, sent, settings, monkeypatch
):
    settings.ARENA_STORE_IDLE_SECONDS = 0.3
    match, _ = ladder_match()
    real_store_event, real_sleep, real_clock = events.send_match_stored, time.sleep, time.monotonic
    stood_still = {"seconds": 0.0}
    waits: list[float] = []

    def frozen(*args, **kwargs) -> None:
        real_sleep(0.6)  # the database ends the store at its 0.3 s bound
        stood_still["seconds"] = 60.0  # the process's clock moved on a minute: the whole worker stood still
        real_store_event(*args, **kwargs)

    monkeypatch.setattr(events, "send_match_stored", frozen)
    monkeypatch.setattr(heartbeats.time, "monotonic", lambda: real_clock() + stood_still["seconds"])
    monkeypatch.setattr(retrying.time, "sleep", waits.append)
    assert matches.play(match.pk, worker="w1@host:1") is False
    assert waits == []  # no retry waited for: no store could succeed past the lease
    match.refresh_from_db()
    assert (match.status, match.attempts, match.failures) == ("queued", 0, 0)
    assert "no heartbeat for a lease" in match.error and not match.played_games.exists()
    resent = [options for task, options in zip(sent, sent.options, strict=True) if task[0] == "play_match"]
    assert resent == [{"countdown": None, "priority": queue.RESEND_PRIORITY}]


def test_the_upkeep_leaves_a_dead_match_whose_row_is_locked_to_its_next_round(transactional_db, sent):
    match, _ = ladder_match(
        status="running", claimed_by="w1@host:1", heartbeat_at=timezone.now() - timedelta(seconds=9)
    )
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:  # the frozen worker's store: the match row written, its transaction open
        with transaction.atomic():
            Match.objects.filter(pk=match.pk).update(games_done=1)
            locked.set()
            release.wait(10)

    thread, _ = in_thread(hold)
    try:
        assert locked.wait(10)
        began = time.monotonic()
        assert matches.requeue_dead() == 0
        assert time.monotonic() - began < 1.0  # it did not wait for the holder
    finally:
        release.set()
        thread.join(10)
    assert matches.requeue_dead() == 1
    assert [task for task in sent if task[0] == "play_match"] == [("play_match", (match.pk,))]
    assert Match.objects.get(pk=match.pk).status == "queued"


def test_the_idle_bound_of_a_store_grows_with_its_games(transactional_db, sent, settings, monkeypatch, played_game):
    settings.ARENA_STORE_IDLE_SECONDS = 1.0
    bounds: list[float] = []
    monkeypatch.setattr(results.stalls, "end_if_idle", bounds.append)
    match, versions = ladder_match(games=500)
    token = match.claim("w1@host:1", matches.lease())
    games = [played_game(index, index % 2) for index in range(500)]
    matches.store(match, token, versions, SimpleNamespace(games=games, stderr={}))
    assert bounds == [1.0 + 500 * matches.STORE_IDLE_PER_GAME]
    assert match.played_games.count() == 500
