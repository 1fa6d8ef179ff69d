"""Rating tables kept compact: a worker process that has rewritten many rating rows VACUUMs their table itself.

A refit rewrites the rating of every version on the ladder: at 10,000 bots ~9,000 rows about once a second. Every
rewrite leaves a dead row version behind. Autovacuum visits a database about once a minute at best, so between its
passes ~60 refits' worth piles up (a table thirty times its size), and every read of the ratings (leaderboard pages,
a bot's rank, the refit's own reads and writes) slows down with it; with autovacuum off the table grows without end
(135 MB for 17,714 ratings after two benchmark runs). So each process counts the rating rows its refits rewrote, and
after `REWRITES_PER_VACUUM` of a table it runs a plain VACUUM on it (no exclusive lock: readers and writers go on;
`SKIP_LOCKED`: if another VACUUM holds the table, this one is skipped). PostgreSQL only, and never inside a
transaction (VACUUM cannot run in one).
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.db.models import Model

log = logging.getLogger(__name__)

REWRITES_PER_VACUUM = 50_000

_rewritten: dict[str, int] = {}


def rewrote(model: type[Model], rows: int) -> None:
    """Note that `rows` rows of `model`'s table were rewritten."""
    table = model._meta.db_table
    _rewritten[table] = _rewritten.get(table, 0) + rows


def vacuum_if_due() -> list[str]:
    """VACUUM each table this process has rewritten `REWRITES_PER_VACUUM` rows of since it last did; the tables."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return []
    due = [table for table, rows in _rewritten.items() if rows >= REWRITES_PER_VACUUM]
    for table in due:
        _rewritten[table] = 0
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"VACUUM (SKIP_LOCKED) {connection.ops.quote_name(table)}")
        except DatabaseError as error:  # not the table's owner, say: autovacuum is left to do it
            log.warning("could not VACUUM %s: %s", table, error)
    return due
