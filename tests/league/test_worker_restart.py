"""A worker restarts quickly: it tries a lost broker again within a fraction of a second and asks for the upkeep once
back, and starts without the system checks that every deploy runs."""

from __future__ import annotations

import os
import subprocess
import sys

from celery.worker.consumer import Consumer
from django.conf import settings

from league import celery, worker_consumer


class Connection:
    def __init__(self) -> None:
        self.asked: list[dict] = []

    def ensure_connection(self, *args: object, **kwargs: object) -> Connection:
        self.asked.append(kwargs)
        return self


def a_consumer(monkeypatch, restart_count: int) -> tuple[worker_consumer.QuickReconnect, list[str]]:
    sent: list[str] = []
    monkeypatch.setattr(Consumer, "ensure_connected", lambda self, conn: conn.ensure_connection(max_retries=None))
    consumer = object.__new__(worker_consumer.QuickReconnect)  # Celery's own set-up is not what this checks
    consumer.app = celery.app
    consumer.restart_count = restart_count
    monkeypatch.setattr(celery.app, "send_task", lambda name, *args, **kwargs: sent.append(name))
    return consumer, sent


def test_the_worker_consumer_reconnects_with_short_intervals(monkeypatch):
    assert settings.CELERY_WORKER_CONSUMER == "league.worker_consumer:QuickReconnect"
    assert celery.app.conf.worker_consumer == "league.worker_consumer:QuickReconnect"
    consumer, sent = a_consumer(monkeypatch, restart_count=0)
    connection = Connection()
    assert consumer.ensure_connected(connection) is connection
    assert connection.asked == [{"max_retries": None, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 5.0}]
    assert sent == []  # the worker's first connection: nothing was lost


def test_a_worker_back_on_the_broker_asks_for_the_upkeep_at_once(monkeypatch):
    consumer, sent = a_consumer(monkeypatch, restart_count=1)
    consumer.ensure_connected(Connection())
    assert sent == ["league.arena.tasks.upkeep"]


def test_a_worker_starts_without_loading_scipy_which_the_first_fit_loads():
    imported = "import sys, django; django.setup(); import league.arena.tasks; print(sorted(set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", imported], capture_output=True, text=True, check=True).stdout
    assert "'league.arena.ladder.bradley_terry'" in loaded and "'scipy" not in loaded
    from league.arena.ladder import bradley_terry

    fitted = bradley_terry.fit_ratings([(1, 2, 1.0), (2, 1, 0.5)])
    assert set(fitted) == {1, 2} and fitted[1].elo > fitted[2].elo


def test_a_worker_skips_the_system_checks_that_every_deploy_runs():
    assert os.environ["CELERY_SKIP_CHECKS"] == "1"  # set by league.celery, read by Celery's Django fix-up


def test_a_pool_process_hands_back_its_nodes_dead_claims_before_its_first_task_only(monkeypatch):
    from types import SimpleNamespace

    from league.arena import tasks

    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.matches, "hand_back_dead_here", lambda worker: calls.append(("matches", worker)))
    monkeypatch.setattr(tasks.refits, "hand_back_dead_here", lambda worker: calls.append(("refits", worker)))
    monkeypatch.setattr(tasks, "_handed_back", False)
    tasks.hand_back_once(SimpleNamespace(request=SimpleNamespace(hostname=None, is_eager=True)))
    assert calls == []  # called in-process: no node
    task = SimpleNamespace(request=SimpleNamespace(hostname="w1@host", is_eager=False))
    tasks.hand_back_once(task)
    tasks.hand_back_once(task)
    assert calls == [("matches", f"w1@host:{os.getpid()}"), ("refits", f"w1@host:{os.getpid()}")]
