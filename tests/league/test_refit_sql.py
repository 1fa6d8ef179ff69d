"""A refit's one-statement read of the pairs and write of the ratings give what the ORM gives."""

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.utils import timezone

from league.arena.ladder import refit_sql, refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import PairResult, Rating, RatingPoint


def _sorted(rows: np.ndarray) -> np.ndarray:
    return rows[np.lexsort(rows.T[::-1])]


def test_the_pairs_and_last_played_read_are_the_stored_ones(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 0, 1, None])
    record_games(c, a, [1])
    record_games(b, c, [0, 1, 1])
    later = timezone.now() + timedelta(hours=1, microseconds=7)
    PairResult.objects.filter(first=b, second=c).update(last_played=later)

    table = refit_sql.read_pairs(PairResult.objects.filter(game="face-to-face"))
    expected = {(p.first_id, p.second_id, p.first_wins, p.second_wins, p.draws) for p in PairResult.objects.all()}
    assert {tuple(int(x) for x in row) for row in table.rows} == expected and len(table.rows) == 3
    assert table.last_played[b.pk] == later and table.last_played[c.pk] == later
    assert table.last_played[a.pk] == max(
        PairResult.objects.filter(first=a)
        .values_list("last_played", flat=True)
        .union(PairResult.objects.filter(second=a).values_list("last_played", flat=True))
    )
    portable = refit_sql.read_pairs_portably(PairResult.objects.filter(game="face-to-face").order_by())
    assert (_sorted(portable.rows) == _sorted(table.rows)).all() and portable.last_played == table.last_played


def test_no_pairs_read_as_an_empty_table(db):
    table = refit_sql.read_pairs(PairResult.objects.filter(game="face-to-face"))
    assert table.rows.shape == (0, 5) and table.last_played == {}


def test_every_rating_column_is_written():
    columns = {field.attname for field in Rating._meta.concrete_fields}
    assert set(refit_sql.RATING_COLUMNS) == columns


def test_a_refit_overwrites_every_rating_and_keeps_its_history_point(alice, bob, make_version, record_games):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    first = {r.version_id: r for r in Rating.objects.all()}
    assert first[a.pk].point_elo == first[a.pk].elo and first[a.pk].point_games == 3
    record_games(a, b, [0])
    refits.refit(RatingPool.ladder("face-to-face"))
    second = {r.version_id: r for r in Rating.objects.all()}
    expected = refits.fit(refits.pair_counts(RatingPool.ladder("face-to-face"))[0])
    for pk, rating in expected.items():
        row = second[pk]
        assert (row.elo, row.low, row.high) == pytest.approx((rating.elo, rating.low, rating.high))
        assert (row.games, row.wins, row.losses) == (rating.games, rating.wins, rating.losses)
        assert (row.point_elo, row.point_games) == (row.elo, 4)  # games changed: a new point


def test_every_history_point_column_but_game_and_time_is_written():
    columns = {field.attname for field in RatingPoint._meta.concrete_fields} - {"id", "game", "fitted_at"}
    assert set(refit_sql.POINT_COLUMNS) == columns


def test_history_points_are_inserted_bit_for_bit(alice, bob, make_version):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    when = datetime(2026, 11, 28, 21, 0, 0, 123456, tzinfo=UTC)
    refit_sql.insert_points(
        "face-to-face",
        {
            "version_id": np.array([a.pk, b.pk]),
            "elo": np.array([1500.0 + 1 / 3, 1499.0]),
            "low": np.array([1400.1, -math.inf]),
            "high": np.array([1600.9, math.inf]),
            "games": np.array([7, 0]),
        },
        when,
    )
    rows = {p.version_id: p for p in RatingPoint.objects.filter(game="face-to-face")}
    assert (rows[a.pk].elo, rows[a.pk].low, rows[a.pk].high, rows[a.pk].games) == (1500.0 + 1 / 3, 1400.1, 1600.9, 7)
    assert (rows[b.pk].low, rows[b.pk].high, rows[b.pk].games) == (-math.inf, math.inf, 0)
    assert {p.fitted_at for p in rows.values()} == {when}
    with pytest.raises(ValueError, match="columns must be"):
        refit_sql.insert_points("face-to-face", {"version_id": np.array([a.pk])}, when)


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        ("float8", [1500.0, -0.1, 1 / 3, 2.0**-1074, 1e308, 1234.5678901234567]),
        ("int8", [0, -1, 2**62, 17]),
        ("int4", [0, -(2**31), 2**31 - 1]),
        ("timestamptz", [datetime(2026, 11, 28, 9, 0, 0, 123456, tzinfo=UTC), datetime(1999, 1, 1, tzinfo=UTC)]),
        ("float8", []),
    ],
)
def test_a_binary_array_reads_back_bit_for_bit(db, kind, values):
    import psycopg
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's binary format")
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.adapters.register_dumper(refit_sql.BinaryArray, refit_sql._BinaryArrayDumper)
        cursor.execute(f"SELECT %b::{kind}[]", (refit_sql.binary_array(values, kind),))
        assert cursor.fetchone()[0] == values


def test_a_binary_array_refuses_what_it_cannot_hold():
    with pytest.raises(ValueError, match="NULL"):
        refit_sql.binary_array([1.0, None], "float8")
    with pytest.raises(ValueError, match="time zone"):
        refit_sql.binary_array([datetime(2026, 1, 1)], "timestamptz")
    with pytest.raises(ValueError, match="out of range"):
        refit_sql.binary_array([2**31], "int4")


def test_rating_numbers_read_as_the_orm_gives_them_with_null_as_nan(alice, bob, make_version, record_games):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    Rating.objects.filter(version=b).update(point_elo=None, point_games=None)
    fields = ("version_id", "elo", "games", "point_elo", "point_games")
    table = refit_sql.read_numbers(Rating.objects.filter(game="face-to-face"), fields)
    rows = {int(row[0]): row for row in table}
    assert sorted(rows) == sorted([a.pk, b.pk]) and table.shape == (2, 5)
    for rating in Rating.objects.all():
        version, elo, games, point_elo, point_games = rows[rating.version_id]
        assert (elo, games) == (rating.elo, rating.games)  # bit for bit
    assert np.isnan(rows[b.pk][3:]).all() and rows[a.pk][3] == Rating.objects.get(version=a).point_elo
    assert refit_sql.read_numbers(Rating.objects.filter(game="the-game"), fields).shape == (0, 5)


@pytest.mark.parametrize("offset", [1, 10**12])  # dense ids (a table of those present) and sparse ones (a sort)
def test_a_pair_table_lists_each_version_once_with_its_latest_game(offset):
    rows = np.array([[3, 5, 1, 0, 0, 700], [1, 3, 0, 2, 1, 900], [1, 5, 1, 1, 0, 800]], dtype=np.int64)
    rows[:, :2] += offset
    table = refit_sql.table_of(rows)
    assert table.versions.tolist() == [offset + 1, offset + 3, offset + 5]
    assert table.latest_us.tolist() == [900, 900, 800]
    assert (table.rows == rows[:, :5]).all()


def test_a_refit_deletes_the_rating_of_a_version_left_in_no_pair(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 1])
    record_games(a, c, [0])
    refits.refit(RatingPool.ladder("face-to-face"))
    assert Rating.objects.count() == 3
    PairResult.objects.filter(second=c).delete()  # as a rebuild that no longer counts c's games would
    refits.refit(RatingPool.ladder("face-to-face"))
    assert sorted(Rating.objects.values_list("version_id", flat=True)) == sorted([a.pk, b.pk])


def test_elos_shown_first_move_each_interval_with_its_elo_and_leave_the_rest(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    before = {r.version_id: r for r in Rating.objects.all()}
    played = datetime(2026, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
    written = refit_sql.shift_ratings(
        "face-to-face",
        {
            # c has no rating yet: it waits for the whole fit; b's Elo moved too little to show (same games)
            "version_id": np.array([a.pk, c.pk, b.pk]),
            "elo": np.array([1600.25, 1400.0, before[b.pk].elo + 0.9 * refit_sql.SHIFT_STEP]),
            "games": np.array([9, 2, before[b.pk].games]),
            "wins": np.array([6, 1, before[b.pk].wins]),
            "losses": np.array([3, 1, before[b.pk].losses]),
            "last_played": np.array([(played - refit_sql.EPOCH) // timedelta(microseconds=1), 0, 0]),
        },
    )
    after = {r.version_id: r for r in Rating.objects.all()}
    assert set(after) == {a.pk, b.pk} and written == 1  # a's row alone
    was, now = before[a.pk], after[a.pk]
    moved = 1600.25 - was.elo
    assert (now.elo, now.games, now.wins, now.losses, now.last_played) == (1600.25, 9, 6, 3, played)
    assert (now.low, now.high) == pytest.approx((was.low + moved, was.high + moved))
    assert (now.point_elo, now.point_low, now.point_games) == (was.point_elo, was.point_low, was.point_games)
    untouched = after[b.pk]
    assert (untouched.elo, untouched.low, untouched.games) == (before[b.pk].elo, before[b.pk].low, before[b.pk].games)
    with pytest.raises(ValueError, match="columns must be"):
        refit_sql.shift_ratings("face-to-face", {"version_id": np.array([a.pk]), "elo": np.array([1.0])})
