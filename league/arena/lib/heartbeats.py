"""A claim's heartbeat, sent from a thread of its own so that it keeps coming however long one game or one fit takes.

A match (or a refit) is presumed dead once its heartbeat is `ARENA_MATCH_LEASE_SECONDS` old, so the beat must not
wait for the work to reach a checkpoint: a worker killed mid-game is then noticed within seconds.

The lease binds its holder too: a holder that has not beaten for a whole lease by its own monotonic clock (its process
was frozen, its machine paused, the database away) gives the work up, since another worker may have taken it over
meanwhile. The thread also notes when it woke far later than it asked to: the whole process stood still, and a turn
timed out across such a stall was not the bot's doing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from types import TracebackType

from django.db import connection

from league.arena.lib import retrying

log = logging.getLogger(__name__)

SECONDS = 1.0
STALL_SECONDS = 1.0  # woken this much later than asked: the whole process stood still (SIGSTOP, VM paused)


class Heartbeat:
    """`with Heartbeat(beat, what):` calls `beat()` every SECONDS until the block ends.

    `beat` returns False once the claim is gone (another worker took it over); `lost` is then set, and the
    beating stops. A database error is logged and the beat tried again a second later. Inside a transaction
    (a test's) no thread is started: another connection could not see the claim yet.
    """

    def __init__(self, beat: Callable[[], bool], what: str, every: float = SECONDS, lease: float | None = None) -> None:
        self.beat, self.what, self.every, self.lease = beat, what, every, lease
        self.lost = threading.Event()
        self.last_beat = time.monotonic()
        self.last_stall: float | None = None  # monotonic time at which the newest stall ended
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def threaded(self) -> bool:
        """Whether beats come from a thread of their own (not inside a transaction, as in a test)."""
        return self._thread is not None

    def stalled_since(self, moment: float) -> bool:
        """Whether the whole process stood still at some time after the monotonic `moment`."""
        return self.last_stall is not None and self.last_stall > moment

    def past_lease(self) -> bool:
        """Whether, by this process's own clock, its last beat is more than a lease old: the work may have been taken
        over (the thread sees it only when it next wakes)."""
        return self.lease is not None and time.monotonic() - self.last_beat > self.lease

    def __enter__(self) -> Heartbeat:
        self.last_beat = time.monotonic()
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
            while True:
                asked = time.monotonic()
                if self._stop.wait(self.every):
                    return
                woke = time.monotonic()
                if woke - asked - self.every > STALL_SECONDS:
                    self.last_stall = woke
                    log.warning("%s: this process stood still for %.1f s", self.what, woke - asked - self.every)
                if self.lease is not None and woke - self.last_beat > self.lease:
                    log.warning(
                        "%s: no heartbeat for %.1f s, past the %.0f s lease: the work is given up",
                        self.what,
                        woke - self.last_beat,
                        self.lease,
                    )
                    self.lost.set()
                    return
                try:
                    if not self.beat():
                        self.lost.set()
                        return
                    self.last_beat = time.monotonic()
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
