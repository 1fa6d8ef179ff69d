"""/metrics/: Prometheus's text format behind a bearer token or an address allow-list, with the league's figures
read from the database at scrape time (so any web process answers the same) and each process's request latency."""

from __future__ import annotations

import ipaddress
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from league.arena.models import BotVersion, Game, Match, RatingFit, WorkerHealth
from league.arena.uploads.house import house_version


@pytest.fixture
def scraper(client, settings):
    settings.ARENA_METRICS_TOKEN = "s3cret-token"
    settings.ARENA_METRICS_ALLOWED_NETWORKS = []

    def scrape() -> dict[str, dict[tuple, float]]:
        response = client.get(reverse("metrics"), HTTP_AUTHORIZATION="Bearer s3cret-token")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=")
        samples: dict[str, dict[tuple, float]] = {}
        for family in text_string_to_metric_families(response.content.decode()):
            for sample in family.samples:
                samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
        return samples

    return scrape


def a_match(**fields):
    versions = [house_version("house:greedy"), house_version("house:random")]
    return Match.objects.create_with_entries(versions, game="face-to-face", games=10, seed="s", **fields)


def test_only_the_token_or_an_allowed_address_gets_in(client, db, settings):
    settings.ARENA_METRICS_TOKEN, settings.ARENA_METRICS_ALLOWED_NETWORKS = "", []
    assert client.get("/metrics/").status_code == 403  # neither set: nobody
    assert client.get("/metrics/", HTTP_AUTHORIZATION="Bearer ").status_code == 403
    settings.ARENA_METRICS_TOKEN = "right"
    for wrong in ("Bearer wrong", "Basic right", "right", "Bearer righter"):
        assert client.get("/metrics/", HTTP_AUTHORIZATION=wrong).status_code == 403, wrong
    assert client.get("/metrics/", HTTP_AUTHORIZATION="Bearer right").status_code == 200
    settings.ARENA_METRICS_TOKEN = ""
    settings.ARENA_METRICS_ALLOWED_NETWORKS = [ipaddress.ip_network("10.0.0.0/8")]
    assert client.get("/metrics/", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics/", REMOTE_ADDR="11.1.2.3").status_code == 403
    assert client.get("/metrics/", REMOTE_ADDR="not an address").status_code == 403


def test_the_league_figures_come_from_the_database(scraper, make_version, record_games, alice, settings):
    now = timezone.now()
    settings.ARENA_MATCH_LEASE_SECONDS = 60
    a, b = make_version(alice, "a"), make_version(alice, "b")
    record_games(a, b, [0, 1, 0])
    record_games(a, b, [1], kind="tournament")
    a_match(kind="ladder", status="failed", error="attempt 3: the match runner failed: OSError()")
    a_match(kind="ladder", status="failed", error="attempt 3: storing the results failed: IntegrityError()")
    a_match(
        kind="scrim",
        status="failed",
        error="gave up after 3 attempts; the last: its worker stopped before it could say why",
    )
    a_match(kind="validation", status="failed", error="something else")
    a_match(kind="ladder", status="running", claimed_by="w1@h:1", heartbeat_at=now - timedelta(seconds=30))
    a_match(kind="ladder", status="running", claimed_by="w2@h:2", heartbeat_at=now - timedelta(minutes=5))
    RatingFit.objects.create(game="face-to-face", games=4, fitted_at=now - timedelta(minutes=2), pending=True)
    RatingFit.objects.create(game="extreme", games=7, fitted_at=now - timedelta(minutes=9))
    WorkerHealth.objects.create(name="w3@h", sick=True, reason="cannot write to /dev/shm", since=now, checked_at=now)
    WorkerHealth.objects.create(name="w4@h", sick=False, since=now, checked_at=now, recovered_at=now)
    a_match(kind="ladder", status="failed", error="gave up after 10 runs whose workers stopped; the last: attempt 10")
    waiting = make_version(alice, "new", status="validating")
    BotVersion.objects.filter(pk=waiting.pk).update(created=now - timedelta(minutes=10))

    got = scraper()
    matches = got["arena_matches"]
    assert matches[(("kind", "ladder"), ("status", "done"))] == 1
    assert matches[(("kind", "tournament"), ("status", "done"))] == 1
    assert matches[(("kind", "ladder"), ("status", "failed"))] == 3
    failed = {
        dict(labels)["kind"] + "/" + dict(labels)["reason"]: n for labels, n in got["arena_matches_failed"].items()
    }
    assert failed == {
        "ladder/runner": 1,
        "ladder/storing": 1,
        "ladder/worker-lost": 1,
        "scrim/worker-lost": 1,
        "validation/other": 1,
    }
    assert got["arena_games_stored_total"][()] == Game.objects.latest("pk").pk
    lag = {dict(labels)["ladder"]: value for labels, value in got["arena_refit_lag_seconds"].items()}
    assert 119 < lag["face-to-face"] < 180 and lag["extreme"] == 0
    assert got["arena_refit_games"][(("ladder", "extreme"),)] == 7
    beats = {dict(labels)["worker"]: value for labels, value in got["arena_worker_heartbeat_age_seconds"].items()}
    assert 29 < beats["w1@h:1"] < 90 and 299 < beats["w2@h:2"] < 400
    assert got["arena_workers_silent"][()] == 1
    assert got["arena_workers_sick"][()] == 1 and got["arena_worker_sick"] == {(("worker", "w3@h"),): 1}
    assert got["arena_validation_waiting"][()] == 1
    assert 599 < got["arena_validation_oldest_wait_seconds"][()] < 700
    assert {dict(labels)["queue"] for labels in got["arena_queue_messages"]} == {
        queue.name for queue in settings.CELERY_TASK_QUEUES
    }
    assert got["arena_broker_up"][()] == 1


def test_request_latency_is_counted_per_route(client, scraper, db):
    before = scraper()["arena_http_request_duration_seconds_count"].get((("method", "GET"), ("route", "docs/")), 0)
    for _ in range(3):
        client.get(reverse("docs"))
    after = scraper()
    assert after["arena_http_request_duration_seconds_count"][(("method", "GET"), ("route", "docs/"))] == before + 3
    assert (("method", "GET"), ("route", "metrics/")) in after["arena_http_request_duration_seconds_count"]


def test_a_broker_that_does_not_answer_is_a_zero_not_an_error(scraper, db, monkeypatch):
    from league.arena.ops import machinery, metrics

    def down():
        raise ConnectionRefusedError("connection refused")

    scraper()  # the process's connection is open now
    monkeypatch.setattr(machinery.app, "connection_for_read", down)
    monkeypatch.setattr(metrics.machinery, "waiting_all", lambda channel, names: down())  # the open one breaks
    got = scraper()
    assert got["arena_broker_up"][()] == 0 and "arena_queue_messages" not in got
    got = scraper()  # it was dropped: the next scrape connects afresh, and that fails too
    assert got["arena_broker_up"][()] == 0
    monkeypatch.undo()
    assert scraper()["arena_broker_up"][()] == 1


def test_queue_lengths_count_every_priority_in_one_round_trip(db):
    from league.arena.ops import machinery

    names = [f"metrics-{time.monotonic_ns()}-{k}" for k in range(3)]
    with machinery.app.connection_for_write() as connection:
        channel = connection.default_channel
        queues = [connection.SimpleQueue(name) for name in names]
        for priority in (0, 5, 9):  # kept in separate lists by the Redis transport
            queues[0].put({"n": priority}, priority=priority)
        queues[1].put({"n": 1})
        assert machinery.waiting_all(channel, names) == [3, 1, 0]
        assert machinery.waiting_all(channel, names) == [machinery.waiting(channel, name) for name in names]
        for queue in queues:
            queue.clear()
            queue.close()
