"""The Celery worker's consumer, as `CELERY_WORKER_CONSUMER` names it (imported by workers only, not by the site)."""

from __future__ import annotations

import functools

from celery.worker.consumer import Consumer

# How a worker's consumer waits between attempts to reach a broker it lost (kombu's default: 2 s, +2 s, at most 30 s).
RECONNECT_INTERVALS = {"interval_start": 0.2, "interval_step": 0.5, "interval_max": 5.0}


class QuickReconnect(Consumer):
    """Celery's consumer, trying a lost broker again sooner (RECONNECT_INTERVALS): Celery offers no setting for it."""

    def ensure_connected(self, conn: object) -> object:
        conn.ensure_connection = functools.partial(conn.ensure_connection, **RECONNECT_INTERVALS)
        return super().ensure_connected(conn)
