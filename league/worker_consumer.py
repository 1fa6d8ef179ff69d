"""The Celery worker's consumer, as `CELERY_WORKER_CONSUMER` names it (imported by workers only, not by the site)."""

from __future__ import annotations

import functools
import logging

from celery.worker.consumer import Consumer

log = logging.getLogger(__name__)

# How a worker's consumer waits between attempts to reach a broker it lost (kombu's default: 2 s, +2 s, at most 30 s).
RECONNECT_INTERVALS = {"interval_start": 0.2, "interval_step": 0.5, "interval_max": 5.0}
UPKEEP = "league.arena.tasks.upkeep"


class QuickReconnect(Consumer):
    """Celery's consumer, trying a lost broker again sooner (RECONNECT_INTERVALS: Celery offers no setting for it),
    and asking for the upkeep as soon as it is back: a broker restarted empty lost every queued message, which the
    upkeep sends again (league/arena/play/matches.py `requeue_unsent`), and each second until the beat's next upkeep
    is a second of workers waiting on an empty queue. The upkeep sends nothing again when the queue kept its messages.
    """

    def ensure_connected(self, conn: object) -> object:
        conn.ensure_connection = functools.partial(conn.ensure_connection, **RECONNECT_INTERVALS)
        connected = super().ensure_connected(conn)
        if self.restart_count > 0:  # connected again after losing the broker (0: the worker's first connection)
            try:
                self.app.send_task(UPKEEP)
            except Exception as error:  # noqa: BLE001 (the beat's next upkeep does it anyway)
                log.warning("reconnected to the broker; the upkeep not sent: %s", error)
        return connected
