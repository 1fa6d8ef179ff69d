"""What a refit reads and writes, in one statement each on PostgreSQL.

At a million games a Face to Face refit reads ~85,000 pair rows and rewrites ~1,800 ratings. Through the ORM
that is ~60 ms of row objects and ~50 ms of upsert building per refit, on top of a fit of ~150 ms; ratings lag
behind the matches by up to two refits. On PostgreSQL the pairs arrive as one bytea of big-endian integers (one
row, no per-pair Python objects) and the ratings go back as one `INSERT ... SELECT FROM unnest(...) ON CONFLICT` of
arrays built in binary by numpy.
Other databases (the embedded SQLite default) take the ORM path: same results, fewer pairs.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property

import numpy as np
import psycopg
import psycopg.adapt
from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from numpy.typing import ArrayLike

from league.arena.models import Rating, RatingPoint

PAIR_FIELDS = ("first_id", "second_id", "first_wins", "second_wins", "draws")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class PairTable:
    """Rows of (first, second, first wins, second wins, draws) and each version's latest rated game."""

    rows: np.ndarray  # shape (pairs, 5), int64
    versions: np.ndarray  # every version in the rows, ascending
    latest_us: np.ndarray  # per version: its latest rated game, microseconds since 1970
    index: np.ndarray  # shape (pairs, 2): each row's two versions as positions in `versions`

    @cached_property
    def last_played(self) -> dict[int, datetime]:
        """Each version's latest rated game."""
        return {
            int(pk): EPOCH + timedelta(microseconds=int(us))
            for pk, us in zip(self.versions, self.latest_us, strict=True)
        }


def read_pairs(pairs: QuerySet) -> PairTable:
    """The pair rows of `pairs` (a queryset of PairResult or DealPair) and when each version last played."""
    pairs = pairs.order_by()
    return _read_pairs_postgresql(pairs) if connection.vendor == "postgresql" else read_pairs_portably(pairs)


def read_numbers(rows: QuerySet, fields: tuple[str, ...]) -> np.ndarray:
    """`fields` of `rows` (numeric columns) as a float64 array of shape (rows, fields), NULL as NaN; ids and counts
    are exact (below 2^53). On PostgreSQL one bytea of big-endian doubles: a refit reads ~17,700 ratings twice at
    10,000 bots, which through the ORM's row tuples took ~50 ms of CPU."""
    rows = rows.order_by()
    if connection.vendor != "postgresql":
        values = list(rows.values_list(*fields))
        return np.array([[math.nan if v is None else v for v in row] for row in values], dtype=np.float64).reshape(
            -1, len(fields)
        )
    inner, params = rows.values_list(*fields).query.sql_with_params()
    columns = [f"c{k}" for k in range(len(fields))]
    doubles = " || ".join(f"float8send(coalesce({column}::float8, 'NaN'))" for column in columns)
    sql = f"SELECT count(*), string_agg({doubles}, ''::bytea) FROM ({inner}) AS r({', '.join(columns)})"
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        count, data = cursor.fetchone()
    table = np.frombuffer(data or b"", dtype=">f8").astype(np.float64).reshape(-1, len(fields))
    if len(table) != count:
        raise ValueError(f"read {len(table)} of {count} rows")
    return table


def read_pairs_portably(pairs: QuerySet) -> PairTable:
    """`read_pairs` through the ORM, on any database."""
    rows = [
        (*counts, (played - EPOCH) // timedelta(microseconds=1))
        for *counts, played in pairs.values_list(*PAIR_FIELDS, "last_played")
    ]
    return table_of(np.array(rows, dtype=np.int64).reshape(-1, 6))


def _read_pairs_postgresql(pairs: QuerySet) -> PairTable:
    return table_of(read_pair_changes(pairs, since=None).rows)


@dataclass(frozen=True)
class PairChanges:
    """The pair rows a PostgreSQL snapshot shows written since a transaction id (all of them if `since` is None)."""

    rows: np.ndarray  # shape (rows, 6), int64: PAIR_FIELDS, then last played in microseconds since 1970
    total: int  # rows of the pool in all
    since: int | None
    horizon: int  # the snapshot's oldest running transaction (64-bit xid): every older one had ended
    next_xid: int  # the snapshot's xmax: the first transaction id not yet given out


def read_pair_changes(pairs: QuerySet, since: int | None) -> PairChanges:
    """The rows of `pairs` written by a transaction whose 64-bit id is at least `since` (a horizon that an earlier
    read returned; some rows written before it come too), how many rows there are in all, and this read's horizon.

    PostgreSQL only. A row's writer is its `xmin`, compared as `age()` within the 32-bit id window; a caller checks
    that `since` was not half a window (2^31 transactions) behind (see league.arena.ladder.kept_pairs).
    """
    table = connection.ops.quote_name(pairs.model._meta.db_table)
    written = pairs.order_by().annotate(writer_age=RawSQL(f"age({table}.xmin)", ()))
    inner, params = written.values_list(*PAIR_FIELDS, "last_played", "writer_age").query.sql_with_params()
    fields = ("c0", "c1", "c2", "c3", "c4", "(extract(epoch FROM c5) * 1000000)")
    # The snapshot's figures once (a materialized CTE: pulled up into the scan they were computed for every row,
    # which tripled the read), the pool's rows counted, and the rows written since `since` aggregated.
    sql = (
        "WITH s AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::int8 AS horizon,"
        " pg_snapshot_xmax(pg_current_snapshot())::text::int8 AS next_xid, age(%s::text::xid) AS reach)"
        f" SELECT s.horizon, s.next_xid, (SELECT count(*) FROM ({inner}) AS q), c.rows, c.data FROM s, LATERAL"
        f" (SELECT count(*) AS rows, string_agg({' || '.join(f'int8send({field}::int8)' for field in fields)},"
        f" ''::bytea) AS data FROM ({inner}) AS p(c0, c1, c2, c3, c4, c5, c6)"
        " WHERE s.reach IS NULL OR p.c6 <= s.reach) AS c"
    )
    since_xid = None if since is None else str(since % 2**32)
    connection.ensure_connection()
    # Every pair as six big-endian int8 in one bytea, read by numpy in one go: 200,000 pairs at 10,000 bots made
    # 1.2 million Python ints through arrays, and the server's six array_agg cost half as much again.
    # Django's cursors bind on the client, which cannot ask for binary results; this one binds on the server.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, (since_xid, *params, *params), binary=True)
        horizon, next_xid, total, count, data = cursor.fetchone()
    rows = np.frombuffer(data or b"", dtype=">i8").astype(np.int64).reshape(-1, len(fields))
    if len(rows) != count:  # a NULL would drop its row from the aggregate: none is allowed
        raise ValueError(f"read {len(rows)} of {count} pair rows: a pair row has a NULL")
    return PairChanges(rows, int(total), since, int(horizon), int(next_xid))


def table_of(rows: np.ndarray) -> PairTable:
    """A PairTable of rows as `read_pair_changes` gives them."""
    versions, index = _distinct(rows[:, :2].reshape(-1))
    latest = np.full(len(versions), np.iinfo(np.int64).min)
    np.maximum.at(latest, index, np.repeat(rows[:, 5], 2))
    return PairTable(rows[:, :5], versions, latest, index.reshape(-1, 2))


def _distinct(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(ids, return_inverse=True)` (non-negative ids); where the ids are dense, by a table of which are
    present rather than a sort: 1 ms instead of 33 for the 400,000 ids of a ladder of 10,000 bots."""
    top = int(ids.max()) + 1 if len(ids) else 0
    if top > 4 * len(ids) + 65_536:
        return np.unique(ids, return_inverse=True)
    present = np.zeros(top, dtype=bool)
    present[ids] = True
    distinct = np.flatnonzero(present)
    position = np.zeros(top, dtype=np.int64)
    position[distinct] = np.arange(len(distinct))
    return distinct, position[ids]


def replace_ratings(game: str, columns: dict[str, ArrayLike], stale: ArrayLike) -> None:
    """Write these Rating rows of `game` (one array per column of RATING_COLUMNS but `game`, a row per index;
    `last_played` in microseconds since 1970) and delete its rows of the `stale` versions (no longer fitted)."""
    if set(columns) != set(RATING_COLUMNS) - {"game"}:
        raise ValueError(f"columns must be {sorted(set(RATING_COLUMNS) - {'game'})}, got {sorted(columns)}")
    stale = np.asarray(stale, dtype=np.int64)
    if np.isin(np.asarray(columns["version_id"], dtype=np.int64), stale).any():
        raise ValueError("a row written is of a stale version")
    if connection.vendor != "postgresql":
        Rating.objects.filter(game=game, version_id__in=stale.tolist()).delete()
        rows = _rows(columns)
        for row in rows:
            row["last_played"] = EPOCH + timedelta(microseconds=row["last_played"])
        Rating.objects.bulk_create(
            [Rating(game=game, **row) for row in rows],
            update_conflicts=True,
            unique_fields=["version"],
            update_fields=[name for name in RATING_COLUMNS if name != "version_id"],
            batch_size=2_000,
        )
        return
    table = Rating._meta.db_table
    names = [name for name in RATING_COLUMNS if name != "game"]
    arrays = ", ".join(f"%b::{RATING_COLUMNS[name]}[]" for name in names)
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in RATING_COLUMNS if name != "version_id")
    with _binary_cursor() as cursor:
        if len(stale):
            cursor.execute(
                f"DELETE FROM {table} WHERE game = %s AND version_id = ANY(%b::int8[])",
                (game, binary_array(stale, "int8")),
            )
        cursor.execute(
            f"INSERT INTO {table} (game, {', '.join(names)}) SELECT %s, * FROM unnest({arrays})"
            f" ON CONFLICT (version_id) DO UPDATE SET {updates}",
            (game, *(binary_array(columns[name], RATING_COLUMNS[name]) for name in names)),
        )


# What `shift_ratings` writes of a Rating (with `version_id`): the fit's Elo and record, not its interval or history.
SHIFTED_COLUMNS = ("elo", "games", "wins", "losses", "last_played")
# `shift_ratings` leaves a row whose Elo moved less than this (and whose games did not change) to the whole fit: the
# pages show whole Elos. At 10,000 bots, 20 matches move ~4,600 ratings by 0.01 Elo or more, ~600 by this much.
SHIFT_STEP = 0.1  # Elo


def shift_ratings(game: str, columns: dict[str, ArrayLike]) -> int:
    """Move the stored Rating rows of these versions of `game` to a new Elo and record (one array per column of
    SHIFTED_COLUMNS and `version_id`) before their intervals are known: each interval keeps its width and moves with
    its Elo, and the history point stays. A version without a row is left alone (the whole fit writes it), and so is
    one with the same games whose Elo moved less than SHIFT_STEP. Returns how many rows it wrote."""
    if set(columns) != {"version_id", *SHIFTED_COLUMNS}:
        raise ValueError(f"columns must be {sorted({'version_id', *SHIFTED_COLUMNS})}, got {sorted(columns)}")
    if connection.vendor != "postgresql":
        new = {row.pop("version_id"): row for row in _rows(columns)}
        rows = [
            row
            for row in Rating.objects.filter(game=game)
            if row.version_id in new
            and (row.games != new[row.version_id]["games"] or abs(row.elo - new[row.version_id]["elo"]) >= SHIFT_STEP)
        ]
        for row in rows:
            values = new[row.version_id]
            moved = values["elo"] - row.elo
            row.low, row.high = row.low + moved, row.high + moved
            row.elo, row.games, row.wins, row.losses = values["elo"], values["games"], values["wins"], values["losses"]
            row.last_played = EPOCH + timedelta(microseconds=values["last_played"])
        Rating.objects.bulk_update(rows, ["low", "high", *SHIFTED_COLUMNS], batch_size=2_000)
        return len(rows)
    names = ("version_id", *SHIFTED_COLUMNS)
    arrays = ", ".join(f"%b::{RATING_COLUMNS[name]}[]" for name in names)
    with _binary_cursor() as cursor:
        # Every right-hand side reads the row as it was: r.elo is the old Elo throughout.
        cursor.execute(
            f"UPDATE {Rating._meta.db_table} AS r SET low = r.low + (n.elo - r.elo), high = r.high + (n.elo - r.elo),"
            f" {', '.join(f'{name} = n.{name}' for name in SHIFTED_COLUMNS)}"
            f" FROM unnest({arrays}) AS n({', '.join(names)})"
            " WHERE r.version_id = n.version_id AND r.game = %s AND (r.games <> n.games OR abs(r.elo - n.elo) >= %s)",
            (*(binary_array(columns[name], RATING_COLUMNS[name]) for name in names), game, SHIFT_STEP),
        )
        return cursor.rowcount


def insert_points(game: str, columns: dict[str, ArrayLike], fitted_at: datetime) -> None:
    """Insert RatingPoint rows of `game` fitted at `fitted_at`: one array per column of POINT_COLUMNS, a row per index.

    On PostgreSQL one statement of binary arrays: Django's bulk_create prepared each of a refit's ~3,000 values one by
    one in Python (30-39 ms of CPU for the ~600 points a refit after 20 random matches writes at 10,000 bots)."""
    if set(columns) != set(POINT_COLUMNS):
        raise ValueError(f"columns must be {sorted(POINT_COLUMNS)}, got {sorted(columns)}")
    if not len(columns["version_id"]):
        return
    if connection.vendor != "postgresql":
        rows = _rows(columns)
        RatingPoint.objects.bulk_create([RatingPoint(game=game, fitted_at=fitted_at, **row) for row in rows])
        return
    names = list(POINT_COLUMNS)
    arrays = ", ".join(f"%b::{POINT_COLUMNS[name]}[]" for name in names)
    with _binary_cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {RatingPoint._meta.db_table} (game, fitted_at, {', '.join(names)})"
            f" SELECT %s, %s, * FROM unnest({arrays})",
            (game, fitted_at, *(binary_array(columns[name], POINT_COLUMNS[name]) for name in names)),
        )


def _rows(columns: dict[str, ArrayLike]) -> list[dict]:
    """The rows of `columns` (an array each) as dicts of Python values, for the ORM's bulk_create off PostgreSQL."""
    values = {name: np.asarray(column).tolist() for name, column in columns.items()}
    return [dict(zip(values, row, strict=True)) for row in zip(*values.values(), strict=True)]


@contextmanager
def _binary_cursor() -> Iterator[psycopg.Cursor]:
    """A cursor of Django's connection that sends BinaryArray values as they are."""
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.adapters.register_dumper(BinaryArray, _BinaryArrayDumper)
        yield cursor


class BinaryArray(bytes):
    """A one-dimensional PostgreSQL array in its binary wire format (`binary_array`), sent as is."""


class _BinaryArrayDumper(psycopg.adapt.Dumper):
    format = psycopg.pq.Format.BINARY

    def dump(self, obj: BinaryArray) -> bytes:
        return obj


# Each element type's oid and big-endian layout in PostgreSQL's binary format (timestamptz: microseconds since 2000).
_ELEMENTS = {"int4": (23, ">i4"), "int8": (20, ">i8"), "float8": (701, ">f8"), "timestamptz": (1184, ">i8")}
_PG_EPOCH_US = (datetime(2000, 1, 1, tzinfo=UTC) - EPOCH) // timedelta(microseconds=1)


def binary_array(values: ArrayLike, kind: str) -> BinaryArray:
    """`values` (no None) as a PostgreSQL array of `kind` (a type of RATING_COLUMNS) in binary, built by numpy.
    Times are aware datetimes or, as an integer array, microseconds since 1970.

    Ten thousand ratings a refit: psycopg dumps a list value by value in Python (a third of a second for a refit's
    13 columns at 10,000 bots), and even a text literal formats each float alone; this is one numpy copy a column.
    The bytes are the IEEE doubles themselves, so the ratings stored are bit for bit the fitted ones.
    """
    oid, layout = _ELEMENTS[kind]
    if not isinstance(values, np.ndarray):
        if any(value is None for value in values):
            raise ValueError(f"a binary {kind} array holds no NULL, got {len(values)} values with None among them")
        if kind == "timestamptz":
            if any(value.tzinfo is None for value in values):
                raise ValueError("a stored time needs its time zone")
            values = np.array([(value - EPOCH) // timedelta(microseconds=1) for value in values], dtype=np.int64)
    elif values.dtype == object:
        raise ValueError(f"a binary {kind} array is built from numbers, got an array of Python objects")
    if not len(values):
        return BinaryArray(struct.pack(">iii", 0, 0, oid))
    numbers = np.asarray(values, dtype=np.float64 if kind == "float8" else np.int64)
    if kind == "timestamptz":
        numbers = numbers - _PG_EPOCH_US
    if kind == "int4" and ((numbers < -(2**31)) | (numbers >= 2**31)).any():
        raise ValueError("an int4 value is out of range")
    items = np.empty(len(values), dtype=[("length", ">i4"), ("value", layout)])
    items["length"] = np.dtype(layout).itemsize
    items["value"] = numbers
    return BinaryArray(struct.pack(">iiiii", 1, 0, oid, len(values), 1) + items.tobytes())


# Every column of Rating, with its PostgreSQL type (a test checks this against the model).
RATING_COLUMNS = {
    "version_id": "int8",
    "game": "text",
    "elo": "float8",
    "low": "float8",
    "high": "float8",
    "games": "int4",
    "wins": "int4",
    "losses": "int4",
    "last_played": "timestamptz",
    "point_elo": "float8",
    "point_low": "float8",
    "point_high": "float8",
    "point_games": "int4",
}

# The columns of a RatingPoint written by a refit (with `game` and `fitted_at`), with their PostgreSQL types.
POINT_COLUMNS = {"version_id": "int8", "elo": "float8", "low": "float8", "high": "float8", "games": "int4"}
