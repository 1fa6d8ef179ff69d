"""A claim's heartbeat, sent from a thread of its own so that it keeps coming however long one game or one fit takes.

A match (or a refit) is presumed dead once its heartbeat is `ARENA_MATCH_LEASE_SECONDS` old, so the beat must not
wait for the work to reach a checkpoint: a worker killed mid-game is then noticed within seconds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType

from django.db import connection

from league.arena.lib import retrying

log = logging.getLogger(__name__)

SECONDS = 1.0


class Heartbeat:
    """`with Heartbeat(beat, what):` calls `beat()` every SECONDS until the block ends.

    `beat` returns False once the claim is gone (another worker took it over); `lost` is then set, and the
    beating stops. A database error is logged and the beat tried again a second later. Inside a transaction
    (a test's) no thread is started: another connection could not see the claim yet.
    """

    def __init__(self, beat: Callable[[], bool], what: str, every: float = SECONDS) -> None:
        self.beat, self.what, self.every = beat, what, every
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if not connection.in_atomic_block:
            self._thread = threading.Thread(target=self._run, name=f"heartbeat {self.what}", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10 * self.every)  # a beat stuck on a dead network gives up alone

    def _run(self) -> None:
        failing = False
        try:
            while not self._stop.wait(self.every):
                try:
                    if not self.beat():
                        self.lost.set()
                        return
                except retrying.DATABASE_ERRORS as error:
                    connection.close()
                    if not failing:
                        log.warning(
                            "%s: heartbeat not sent: %s; trying every %.0f s",
                            self.what,
                            retrying.what_failed(error),
                            self.every,
                        )
                    failing = True
                    continue
                if failing:
                    log.warning("%s: heartbeat sent again", self.what)
                    failing = False
        finally:
            connection.close()  # this thread's own connection
