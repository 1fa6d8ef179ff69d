"""A process that has rewritten many rating rows VACUUMs their table after a refit, never inside a transaction."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.arena.ladder import refits, vacuuming
from league.arena.ladder.pools import RatingPool
from league.arena.models import Rating


@pytest.fixture(autouse=True)
def postgresql_only(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("VACUUM is PostgreSQL's")
    monkeypatch.setattr(vacuuming, "_rewritten", {})


def _vacuums(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if query["sql"].startswith("VACUUM")]


@pytest.mark.django_db(transaction=True)
def test_a_refit_vacuums_the_ratings_once_its_process_rewrote_enough_of_them(
    alice, bob, make_version, record_games, monkeypatch
):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    monkeypatch.setattr(vacuuming, "REWRITES_PER_VACUUM", 3)
    record_games(a, b, [0])
    with CaptureQueriesContext(connection) as first:
        refits.refit(RatingPool.ladder("face-to-face"))  # two rows rewritten: not yet
    record_games(a, b, [1])
    with CaptureQueriesContext(connection) as second:
        refits.refit(RatingPool.ladder("face-to-face"))  # four
    assert _vacuums(first) == [] and _vacuums(second) == [f'VACUUM (SKIP_LOCKED) "{Rating._meta.db_table}"']
    assert vacuuming._rewritten[Rating._meta.db_table] == 0
    assert Rating.objects.count() == 2  # the ratings are untouched by it


@pytest.mark.django_db
def test_nothing_is_vacuumed_inside_a_transaction(alice, bob, make_version, record_games, monkeypatch):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    monkeypatch.setattr(vacuuming, "REWRITES_PER_VACUUM", 1)
    record_games(a, b, [0])
    with CaptureQueriesContext(connection) as queries:
        refits.refit(RatingPool.ladder("face-to-face"))
    assert _vacuums(queries) == [] and vacuuming._rewritten[Rating._meta.db_table] == 2  # left for later
