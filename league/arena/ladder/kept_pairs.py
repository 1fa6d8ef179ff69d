"""A rating pool's pair rows kept in this process between refits, brought up to date by reading only what changed.

At 10,000 bots a ladder has ~200,000 pair rows and a match changes one of them; reading them all cost a refit about
a third of a second of database time. Here each process keeps the rows one read saw, together with that read's
snapshot horizon (the oldest transaction still running then, `pg_snapshot_xmin`), and the next read asks only for
rows written by a transaction at or after that horizon (a row's `xmin`): every row committed since, and some seen
already (harmless: a row read again replaces itself). A row written before the horizon was committed before the last
read began, so that read saw it as it is now. The same scan counts the pool's rows: a row deleted since (a rebuild,
a deleted version) leaves the kept table one row longer than the pool, and that read is done again in full.

Correct with any number of processes and machines, each keeping its own copy: what a read trusts is the database's
snapshot, never who wrote. A read inside a transaction (tests, a caller's `atomic`) could see that transaction's own
uncommitted rows, which a rollback would take back: there every read is a full one and nothing is kept. Only
PostgreSQL has row transaction ids: elsewhere (the embedded SQLite default) every read is a full one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import QuerySet

from league.arena.ladder import refit_sql

# Version ids pack into one int64 key per pair (first << 32 | second) below this; past it nothing is kept.
_KEY_ID_LIMIT = 2**32
# Row transaction ids are compared within PostgreSQL's 32-bit window; a horizon this far behind is not trusted.
_HORIZON_REACH = 2**30


@dataclass(frozen=True)
class _Kept:
    keys: np.ndarray  # sorted, one per row: first << 32 | second
    rows: np.ndarray  # (rows, 6) int64: refit_sql.PAIR_FIELDS and last played in microseconds since 1970
    horizon: int  # 64-bit xid: every row written by a transaction before it is in `rows` as it is now
    next_xid: int  # the read's snapshot xmax: a later read seeing a smaller one is on another database


_kept: dict[tuple, _Kept] = {}
_lock = threading.Lock()


def read(pairs: QuerySet) -> refit_sql.PairTable:
    """The pair rows of `pairs` (a pool's queryset of PairResult or DealPair), as `refit_sql.read_pairs` reads them."""
    pairs = pairs.order_by()
    if connection.vendor != "postgresql":
        return refit_sql.read_pairs(pairs)
    if connection.in_atomic_block:
        return refit_sql.read_pairs(pairs)
    key = _identity(pairs)
    with _lock:
        kept = _kept.get(key)
    changes = refit_sql.read_pair_changes(pairs, since=kept.horizon if kept else None)
    table = _brought_up_to_date(kept, changes)
    if table is None and changes.since is not None:  # deleted rows or another database: read them all
        changes = refit_sql.read_pair_changes(pairs, since=None)
        table = _brought_up_to_date(None, changes)
    with _lock:
        if table is None:
            _kept.pop(key, None)
        else:
            _kept[key] = table
    return refit_sql.table_of(changes.rows if table is None else table.rows)


def forget() -> None:
    """Drop every kept table (the next read of each pool is a full one)."""
    with _lock:
        _kept.clear()


def _identity(pairs: QuerySet) -> tuple:
    """Which rows a kept table holds: the database and the query (table, pool filter and its parameters)."""
    sql, params = pairs.values_list(*refit_sql.PAIR_FIELDS).query.sql_with_params()
    settings = connection.settings_dict
    return (settings["HOST"], settings["PORT"], settings["NAME"], sql, tuple(params))


def _brought_up_to_date(kept: _Kept | None, changes: refit_sql.PairChanges) -> _Kept | None:
    """`kept` with the changed rows merged in; None if that cannot be trusted (see the module's note)."""
    rows = changes.rows
    if rows.size and rows[:, :2].max() >= _KEY_ID_LIMIT:
        return None
    keys = (rows[:, 0] << 32) | rows[:, 1]
    if changes.since is None:
        order = np.argsort(keys, kind="stable")
        merged_keys, merged_rows = keys[order], rows[order]
    elif kept is not None and kept.next_xid <= changes.next_xid < changes.since + _HORIZON_REACH:
        merged_keys, merged_rows = _merge(kept.keys, kept.rows, keys, rows)
    else:
        return None
    if len(merged_keys) != changes.total or not (np.diff(merged_keys) > 0).all():
        return None
    return _Kept(merged_keys, merged_rows, changes.horizon, changes.next_xid)


def _merge(
    keys: np.ndarray, rows: np.ndarray, new_keys: np.ndarray, new_rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The rows by key, each of `new_rows` replacing the row of its key or added in key order."""
    if not len(new_keys):
        return keys, rows
    position = np.searchsorted(keys, new_keys)
    found = position < len(keys)
    found[found] = keys[position[found]] == new_keys[found]
    merged = rows.copy()
    merged[position[found]] = new_rows[found]
    added = ~found
    if not added.any():
        return keys, merged
    all_keys = np.concatenate([keys, new_keys[added]])
    order = np.argsort(all_keys, kind="stable")
    return all_keys[order], np.concatenate([merged, new_rows[added]])[order]
