"""A transaction whose process stands still (frozen, paused) must not keep other workers waiting on its row locks.

A worker frozen in the middle of storing a match holds the locks of every row its store has written so far, the
versions' results rows among them, which every other store of those versions writes too: without a bound, the other
workers' stores wait for the whole freeze (in the fault drill, w2 stood still for all 8 s of w1's freeze). PostgreSQL
ends a transaction whose client sent nothing for `idle_in_transaction_session_timeout`, releasing its locks at once;
the resumed process finds its connection gone, a passing database error (`retrying`), and tries again under the same
claim and lease checks. Set only for the part of the transaction that asks (a store: from the first row other stores
write too on, a few statements whatever the number of games): other work may think longer between its queries.
"""

from __future__ import annotations

import psycopg.errors
from django.db import DatabaseError, connection


def end_if_idle(seconds: float) -> None:
    """Have PostgreSQL end the current transaction if this process sends nothing for `seconds` between two of its
    statements (SET LOCAL: it ends with the transaction). SQLite has no such bound."""
    if connection.vendor == "postgresql" and seconds > 0:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT set_config('idle_in_transaction_session_timeout', %s, true)", [f"{round(seconds * 1000)}ms"]
            )


def ended_idle(error: DatabaseError) -> bool:
    """Whether `error` is PostgreSQL ending a transaction that `end_if_idle` bounded: a passing error (the
    connection is gone and the work may be tried again), though psycopg raises it as an InternalError."""
    return isinstance(error.__cause__, psycopg.errors.IdleInTransactionSessionTimeout)
