"""The sessions open on a PostgreSQL test database besides the test's own: a session a test leaves open (a thread's
connection, a worker it started) outlives it, and keeps the database from being dropped at the end of the run."""

from __future__ import annotations

import time

from django.db import connection

GRACE_SECONDS = 5.0  # a closed session's backend ends a moment after its client


def sessions_left(grace: float = GRACE_SECONDS) -> list[tuple]:
    """The other sessions on this database (pid, state, last query) still open after up to `grace` seconds."""
    deadline = time.monotonic() + grace
    while (left := _other_sessions()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _other_sessions() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            "select pid, state, left(query, 200) from pg_stat_activity "
            "where datname = current_database() and pid <> pg_backend_pid()"
        )
        return cursor.fetchall()
