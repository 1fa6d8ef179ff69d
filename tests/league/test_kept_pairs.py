"""A refit's pair rows kept between reads give what a full read gives, whatever was written, deleted or still open."""

import numpy as np
import psycopg
import pytest
from django.db import connection, transaction

from league.arena.ladder import kept_pairs, refit_sql
from league.arena.models import PairResult

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("row transaction ids are PostgreSQL's")
    kept_pairs.forget()
    yield
    kept_pairs.forget()


@pytest.fixture
def reads(monkeypatch):
    """Each read_pair_changes call: (since, changed rows returned, rows in all)."""
    calls = []
    real = refit_sql.read_pair_changes

    def spy(pairs, since):
        changes = real(pairs, since)
        calls.append((since, len(changes.rows), changes.total))
        return changes

    monkeypatch.setattr(refit_sql, "read_pair_changes", spy)
    return calls


def _pairs():
    return PairResult.objects.filter(game="face-to-face")


def _as_set(table: refit_sql.PairTable) -> set:
    return {tuple(int(x) for x in row) for row in table.rows}


def _same_as_a_full_read(table: refit_sql.PairTable) -> None:
    full = refit_sql.read_pairs_portably(_pairs().order_by())  # the ORM: independent of what is kept
    assert _as_set(table) == _as_set(full) and len(table.rows) == len(full.rows)
    assert table.last_played == full.last_played


def test_a_read_after_new_games_reads_only_the_rows_written_since(alice, bob, make_version, record_games, reads):
    a, b, c, d = (make_version(alice if k % 2 else bob, name) for k, name in enumerate("abcd"))
    record_games(a, b, [0, 1])
    record_games(a, c, [0])
    record_games(c, d, [None, 1])
    _same_as_a_full_read(kept_pairs.read(_pairs()))
    assert reads == [(None, 3, 3)]

    record_games(a, b, [0, 0, 0])  # an old pair with more games
    record_games(b, d, [1])  # a new pair
    table = kept_pairs.read(_pairs())
    _same_as_a_full_read(table)
    since, changed, total = reads[-1]
    # Rows written since the oldest transaction running at the first read (in any database of the server) come
    # again: on a busy server that can be every row, never fewer than the two written.
    assert since is not None and 2 <= changed <= total == 4 and len(reads) == 2
    assert np.all(np.diff(table.rows[:, 0] * 2**32 + table.rows[:, 1]) > 0)
    _same_as_a_full_read(kept_pairs.read(_pairs()))
    assert reads[-1][0] is not None and len(reads) == 3


def test_the_rows_written_since_a_transaction_id_are_those_of_later_transactions(
    alice, bob, make_version, record_games
):
    a, b, c, d = (make_version(alice if k % 2 else bob, name) for k, name in enumerate("abcd"))
    record_games(a, b, [0, 1])
    record_games(a, c, [0])
    first = refit_sql.read_pair_changes(_pairs(), since=None)
    assert len(first.rows) == first.total == 2 and first.horizon <= first.next_xid
    record_games(a, b, [0, 0, 0])
    record_games(c, d, [1])
    later = refit_sql.read_pair_changes(_pairs(), since=first.next_xid)
    assert later.total == 3 and later.since == first.next_xid
    assert {tuple(int(x) for x in row[:5]) for row in later.rows} == {(a.pk, b.pk, 4, 1, 0), (c.pk, d.pk, 0, 1, 0)}
    assert len(refit_sql.read_pair_changes(_pairs(), since=later.next_xid).rows) == 0


def test_a_row_deleted_since_makes_the_read_a_full_one(alice, bob, make_version, record_games, reads):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0])
    record_games(b, c, [1, 1])
    kept_pairs.read(_pairs())
    PairResult.objects.filter(first=a, second=b).delete()
    record_games(a, c, [0])
    _same_as_a_full_read(kept_pairs.read(_pairs()))
    assert [since is None for since, _, _ in reads] == [True, False, True]


def test_a_write_still_open_during_a_read_is_read_after_it_commits(alice, bob, make_version, record_games, reads):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0])
    record_games(b, c, [1])
    pair = PairResult.objects.get(first=a, second=b)
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"], user=settings["USER"], dbname=settings["NAME"]
    ) as other:
        # The open transaction writes first, so its id is older than the one committed after it.
        other.execute(f"UPDATE {PairResult._meta.db_table} SET draws = draws + 5 WHERE id = %s", (pair.pk,))
        record_games(b, c, [0, 0])
        seen = kept_pairs.read(_pairs())
        assert (a.pk, b.pk, 1, 0, 0) in _as_set(seen)  # the open write is not visible yet
        other.commit()
    table = kept_pairs.read(_pairs())
    assert (a.pk, b.pk, 1, 0, 5) in _as_set(table)
    _same_as_a_full_read(table)
    assert reads[-1][0] is not None  # read as changes, not in full


def test_inside_a_transaction_every_read_is_full_and_nothing_is_kept(alice, bob, make_version, record_games, reads):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0])
    with transaction.atomic():
        record_games(a, b, [1])
        _same_as_a_full_read(kept_pairs.read(_pairs()))
        transaction.set_rollback(True)
    assert reads == [(None, 1, 1)] and not kept_pairs._kept
    _same_as_a_full_read(kept_pairs.read(_pairs()))
    assert _as_set(kept_pairs.read(_pairs())) == {(a.pk, b.pk, 1, 0, 0)}


def test_every_pool_keeps_its_own_rows(alice, bob, make_version, record_games, reads):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0])
    assert len(kept_pairs.read(_pairs()).rows) == 1
    assert len(kept_pairs.read(PairResult.objects.filter(game="the-game")).rows) == 0
    record_games(a, b, [1])
    assert _as_set(kept_pairs.read(_pairs())) == {(a.pk, b.pk, 1, 1, 0)}
    assert len(kept_pairs._kept) == 2
