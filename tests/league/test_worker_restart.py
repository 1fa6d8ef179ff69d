"""A worker restarts quickly: it tries a lost broker again within a fraction of a second, and starts without the
system checks that every deploy runs."""

from __future__ import annotations

from celery.worker.consumer import Consumer
from django.conf import settings

from league import celery, worker_consumer


def test_the_worker_consumer_reconnects_with_short_intervals(monkeypatch):
    assert settings.CELERY_WORKER_CONSUMER == "league.worker_consumer:QuickReconnect"
    assert celery.app.conf.worker_consumer == "league.worker_consumer:QuickReconnect"
    asked: list[dict] = []

    class Connection:
        def ensure_connection(self, *args: object, **kwargs: object) -> Connection:
            asked.append(kwargs)
            return self

    monkeypatch.setattr(Consumer, "ensure_connected", lambda self, conn: conn.ensure_connection(max_retries=None))
    consumer = object.__new__(worker_consumer.QuickReconnect)  # Celery's own set-up is not what this checks
    consumer.ensure_connected(Connection())
    assert asked == [{"max_retries": None, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 5.0}]


def test_a_worker_skips_the_system_checks_that_every_deploy_runs():
    import os

    assert os.environ["CELERY_SKIP_CHECKS"] == "1"  # set by league.celery, read by Celery's Django fix-up
