"""What a refit reads and writes, in one statement each on PostgreSQL.

At a million games a Face to Face refit reads ~85,000 pair rows and rewrites ~1,800 ratings. Through the ORM
that is ~60 ms of row objects and ~50 ms of upsert building per refit, on top of a fit of ~150 ms; ratings lag
behind the matches by up to two refits. On PostgreSQL the pairs arrive as six arrays in binary (one row, no
per-pair Python objects) and the ratings go back as one `INSERT ... SELECT FROM unnest(...) ON CONFLICT`.
Other databases (the embedded SQLite default) take the ORM path: same results, fewer pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import psycopg
from django.db import connection
from django.db.models import Max, QuerySet

from league.arena.models import Rating

PAIR_FIELDS = ("first_id", "second_id", "first_wins", "second_wins", "draws")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class PairTable:
    """Rows of (first, second, first wins, second wins, draws) and each version's latest rated game."""

    rows: np.ndarray  # shape (pairs, 5), int64
    last_played: dict[int, datetime]


def read_pairs(pairs: QuerySet) -> PairTable:
    """The pair rows of `pairs` (a queryset of PairResult or DealPair) and when each version last played."""
    pairs = pairs.order_by()
    return _read_pairs_postgresql(pairs) if connection.vendor == "postgresql" else read_pairs_portably(pairs)


def read_pairs_portably(pairs: QuerySet) -> PairTable:
    """`read_pairs` through the ORM, on any database."""
    rows = np.array(list(pairs.values_list(*PAIR_FIELDS)), dtype=np.int64).reshape(-1, 5)
    last: dict[int, datetime] = {}
    for side in ("first", "second"):  # each version's latest pair, grouped in the database
        for version, played in pairs.values(side).annotate(latest=Max("last_played")).values_list(side, "latest"):
            if version not in last or played > last[version]:
                last[version] = played
    return PairTable(rows, last)


def _read_pairs_postgresql(pairs: QuerySet) -> PairTable:
    inner, params = pairs.values_list(*PAIR_FIELDS, "last_played").query.sql_with_params()
    sql = (
        "SELECT array_agg(c0::int8), array_agg(c1::int8), array_agg(c2::int8), array_agg(c3::int8),"
        " array_agg(c4::int8), array_agg((extract(epoch FROM c5) * 1000000)::int8)"
        f" FROM ({inner}) AS p(c0, c1, c2, c3, c4, c5)"
    )
    connection.ensure_connection()
    # Django's cursors bind on the client, which cannot ask for binary results; this one binds on the server.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        columns = cursor.fetchone()
    if columns is None or columns[0] is None:
        return PairTable(np.zeros((0, 5), dtype=np.int64), {})
    *counts, played = (np.asarray(column, dtype=np.int64) for column in columns)
    rows = np.stack(counts, axis=1)
    return PairTable(rows, _latest_per_version(rows[:, :2], played))


def _latest_per_version(versions: np.ndarray, played_us: np.ndarray) -> dict[int, datetime]:
    ids, index = np.unique(versions, return_inverse=True)
    latest = np.full(len(ids), np.iinfo(np.int64).min)
    np.maximum.at(latest, index.reshape(-1), np.repeat(played_us, 2))
    return {int(pk): EPOCH + timedelta(microseconds=int(us)) for pk, us in zip(ids, latest, strict=True)}


def replace_ratings(game: str, columns: dict[str, list], rated: list[int]) -> None:
    """Write these Rating rows of `game` (one list per column of RATING_COLUMNS but `game`, a row per index) and
    delete its rows of versions not in `rated`; rows of other `rated` versions stay as they are."""
    if set(columns) != set(RATING_COLUMNS) - {"game"}:
        raise ValueError(f"columns must be {sorted(set(RATING_COLUMNS) - {'game'})}, got {sorted(columns)}")
    if not set(columns["version_id"]) <= set(rated):
        raise ValueError("every row written must be of a rated version")
    if connection.vendor != "postgresql":
        Rating.objects.filter(game=game).exclude(version_id__in=rated).delete()
        rows = [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]
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
    arrays = ", ".join(f"%s::{RATING_COLUMNS[name]}[]" for name in names)
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in RATING_COLUMNS if name != "version_id")
    connection.ensure_connection()
    # Server-side binding sends the arrays in binary: no text rendering of 13 x 1,800 values per refit.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE game = %s AND NOT (version_id = ANY(%s::int8[]))", (game, rated))
        cursor.execute(
            f"INSERT INTO {table} (game, {', '.join(names)}) SELECT %s, * FROM unnest({arrays})"
            f" ON CONFLICT (version_id) DO UPDATE SET {updates}",
            (game, *(columns[name] for name in names)),
        )


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
