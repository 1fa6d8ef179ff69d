"""A worker's own environment is judged apart from its matches: a run that failed because the worker's machine broke
(the self-check confirms it) goes back to the queue uncounted, and the worker stands down until it heals."""

from __future__ import annotations

import errno
import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

import bots.match
from bots.sandbox.bwrap import SandboxUnavailable
from league.arena import tasks
from league.arena.models import Match, WorkerHealth
from league.arena.play import hosts, matches
from league.arena.uploads.house import house_version


@pytest.fixture
def match(db):
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    return Match.objects.create_with_entries([greedy, rnd], kind="tournament", game="face-to-face", games=2, seed="h")


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """committed(f): f() with the tasks it sends on commit sent, also when it raises."""

    def call(function):
        with django_capture_on_commit_callbacks(execute=True):
            return function()

    return call


def scratch_full(spec, on_game=None):
    raise OSError(errno.ENOSPC, "No space left on device", "/dev/shm/thegame-sandbox-1-x")


def test_errors_of_the_machine_are_told_from_the_others():
    assert "No space left on device" in hosts.environment_fault(OSError(errno.ENOSPC, "No space left on device"))
    assert hosts.environment_fault(OSError(errno.EMFILE, "Too many open files")).startswith("Too many open files")
    assert "bwrap" in hosts.environment_fault(SandboxUnavailable("bubblewrap (bwrap) is not installed"))
    try:
        try:
            raise OSError(errno.EROFS, "Read-only file system")
        except OSError as error:
            raise RuntimeError("the bot could not be unpacked") from error
    except RuntimeError as wrapped:
        assert "Read-only file system" in hosts.environment_fault(wrapped)
    assert hosts.environment_fault(OSError(errno.ENOENT, "No such file")) is None
    assert hosts.environment_fault(ValueError("a bug")) is None


def test_a_sick_worker_hands_the_match_back_uncounted(match, sent, monkeypatch, settings, caplog, committed):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 1
    monkeypatch.setattr(bots.match, "run_match", scratch_full)
    monkeypatch.setattr(hosts, "self_check", lambda: "cannot write to /dev/shm: No space left on device")
    for _ in range(3):  # however often: no attempt counted, never failed
        with caplog.at_level(logging.ERROR), pytest.raises(hosts.HostSick, match="cannot write to /dev/shm"):
            committed(lambda: matches.play(match.pk, worker="w1@host:7"))
        match.refresh_from_db()
        assert (match.status, match.attempts, match.failures, match.claim_token) == ("queued", 0, 0, None)
    assert "No space left on device" in match.error and "w1@host:7 is sick" in match.error
    assert sent == [("play_match", (match.pk,))] * 3  # at once, for a healthy worker
    assert "handed back uncounted" in caplog.text


def test_the_same_error_with_a_healthy_worker_is_the_matchs_own(match, sent, monkeypatch, settings, committed):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2
    monkeypatch.setattr(bots.match, "run_match", scratch_full)
    monkeypatch.setattr(hosts, "self_check", lambda: None)  # the disk has room again once the run cleaned up
    with pytest.raises(OSError):
        committed(lambda: matches.play(match.pk, worker="w1@host:7"))
    match.refresh_from_db()
    assert (match.status, match.attempts, match.failures) == ("queued", 1, 1)
    with pytest.raises(OSError):
        matches.play(match.pk, worker="w1@host:7")
    match.refresh_from_db()
    assert (match.status, match.failures) == ("failed", 2)


def test_worker_deaths_do_not_count_toward_the_cap(match, sent, settings):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 1
    stale = timezone.now() - timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS + 1)
    dead = {"status": "running", "heartbeat_at": stale, "queued_at": stale}
    Match.objects.filter(pk=match.pk).update(attempts=matches.MAX_SILENT_RUNS - 1, **dead)
    assert matches.play(match.pk, worker="w2@host:8") is True  # nine runs killed with their workers: played
    other = Match.objects.create_with_entries(
        match.ordered_versions(), kind="tournament", game="face-to-face", games=1, seed="k"
    )
    Match.objects.filter(pk=other.pk).update(attempts=matches.MAX_SILENT_RUNS, **dead)
    assert matches.play(other.pk, worker="w2@host:8") is False
    other.refresh_from_db()
    assert other.status == "failed" and other.error.startswith("gave up after 10 runs whose workers stopped")


def test_the_self_check_writes_where_the_worker_keeps_its_files(settings, tmp_path):
    settings.ARENA_SANDBOX = False
    settings.ARENA_CACHE_DIR = tmp_path / "cache"
    assert hosts.self_check() is None
    (tmp_path / "file").write_text("")
    settings.ARENA_CACHE_DIR = tmp_path / "file" / "cache"  # cannot be made: the worker cannot store a bot
    assert hosts.self_check().startswith(f"cannot write to {tmp_path / 'file' / 'cache'}")


def test_a_sick_worker_stops_consuming_until_its_self_check_passes(db, monkeypatch, caplog):
    calls: list[tuple[str, str, list[str]]] = []
    control = SimpleNamespace(
        cancel_consumer=lambda name, destination: calls.append(("cancel", name, destination)),
        add_consumer=lambda name, destination: calls.append(("add", name, destination)),
    )
    monkeypatch.setattr(hosts.app, "control", control)
    checks = iter(["cannot write to /dev/shm: No space left on device", None])
    seen: list[WorkerHealth] = []

    def check() -> str | None:
        seen.append(WorkerHealth.objects.get(name="w1@host"))
        return next(checks)

    monkeypatch.setattr(hosts, "self_check", check)
    monkeypatch.setattr(hosts.time, "sleep", lambda seconds: None)
    with caplog.at_level(logging.WARNING):
        hosts.stand_down("w1@host", "the sandbox is unavailable: bwrap could not build the sandbox")
    queues = hosts.own_match_queues()
    assert calls == [("cancel", name, ["w1@host"]) for name in queues] + [("add", n, ["w1@host"]) for n in queues]
    assert seen[0].sick and "bwrap could not build" in seen[0].reason
    assert seen[1].sick and seen[1].reason == "cannot write to /dev/shm: No space left on device"
    health = WorkerHealth.objects.get(name="w1@host")
    assert not health.sick and health.recovered_at is not None
    assert "worker w1@host is sick" in caplog.text and "w1@host passed its self-check" in caplog.text


def test_the_task_stands_down_its_own_worker(match, sent, monkeypatch):
    monkeypatch.setattr(bots.match, "run_match", scratch_full)
    monkeypatch.setattr(hosts, "self_check", lambda: "cannot write to /dev/shm")
    stood_down: list[tuple[str, str]] = []
    monkeypatch.setattr(hosts, "stand_down", lambda node, problem: stood_down.append((node, problem)))
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False, hostname="w1@host"))
    tasks.play(task, match.pk)
    assert stood_down == [("w1@host", "cannot write to /dev/shm")]


def test_the_machinery_page_names_the_sick_worker_and_why(client, db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    now = timezone.now()
    WorkerHealth.objects.create(name="w1@host", sick=True, reason="cannot write to /dev/shm", since=now, checked_at=now)
    page = client.get(reverse("machinery")).content.decode()
    assert "Sick workers (1)" in page and "w1@host" in page and "cannot write to /dev/shm" in page
