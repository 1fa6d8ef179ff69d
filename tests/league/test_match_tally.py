"""The match counts kept by triggers (league/arena/models/tallies.py) equal a count of the match table, whatever
path changed it, and folding their rows keeps every count."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest
from django.db import connection, transaction

from league.arena.models import Match, MatchTally
from league.arena.ops import tallies
from league.arena.uploads.house import house_version

pytestmark = pytest.mark.django_db

REASONS = {
    "attempt 3: the match runner failed: OSError()": "runner",
    "attempt 3: storing the results failed: IntegrityError()": "storing",
    "gave up after 10 runs whose workers stopped; the last: attempt 10": "worker-lost",
    "gave up after 3 attempts; the last: its worker stopped before it could say why": "worker-lost",
    "season ended: spring started": "other",
}
# What a failed match's error says about the step that broke (league/arena/play/matches.py), first found first.
STEPS = [
    ("runs whose workers stopped", "worker-lost"),
    ("storing the results failed", "storing"),
    ("the match runner failed", "runner"),
    ("stopped before it could say why", "worker-lost"),
]


def a_match(**fields) -> Match:
    versions = [house_version("house:greedy"), house_version("house:random")]
    return Match.objects.create_with_entries(versions, game="face-to-face", games=1, seed="s", **fields)


def counted() -> Counter:
    """The same figures from the match table itself, as /metrics/ once read them."""
    found: Counter = Counter()
    for match in Match.objects.all():
        reason = ""
        if match.status == Match.Status.FAILED:
            reason = next((name for text, name in STEPS if text in match.error), "other")
        found[(match.kind, match.status, reason)] += 1
    return found


def test_every_path_that_changes_a_match_is_counted():
    first, second, third = a_match(kind="ladder"), a_match(kind="scrim"), a_match(kind="tournament")
    assert tallies.match_counts() == counted()
    Match.objects.filter(pk=first.pk).update(status="running", claimed_by="w@h")
    Match.objects.filter(pk=first.pk).update(heartbeat_at=first.created)  # not a change of state: no row
    rows = MatchTally.objects.count()
    Match.objects.filter(pk=first.pk).update(heartbeat_at=first.created, error="")
    assert MatchTally.objects.count() == rows
    for error, reason in REASONS.items():  # a failed match whose error changes moves between reasons
        Match.objects.filter(pk=second.pk).update(status="failed", error=error)
        assert tallies.match_counts()[("scrim", "failed", reason)] == 1
        assert tallies.match_counts() == counted(), error
    Match.objects.filter(pk=second.pk).update(status="queued", error="retried by the staff")
    third.status = "done"
    third.save()
    Match.objects.filter(pk=first.pk).update(kind="exhibition", status="done")
    a_match(kind="validation", status="failed", error="attempt 3: the match runner failed: x").delete()
    assert tallies.match_counts() == counted()
    assert ("exhibition", "done", "") in tallies.match_counts() and ("validation", "failed", "runner") not in counted()


def test_a_rolled_back_change_is_not_counted():
    match = a_match(kind="ladder")
    before = tallies.match_counts()
    with pytest.raises(RuntimeError), transaction.atomic():
        Match.objects.filter(pk=match.pk).update(status="done")
        a_match(kind="ladder")
        raise RuntimeError("the store failed")
    assert tallies.match_counts() == before == counted()


def test_folding_keeps_every_count_in_one_row_per_state():
    matches = [a_match(kind="ladder") for _ in range(5)]
    Match.objects.filter(pk__in=[m.pk for m in matches[:3]]).update(status="done")
    Match.objects.filter(pk=matches[3].pk).update(status="failed", error="attempt 3: the match runner failed: x")
    before = tallies.match_counts()
    assert MatchTally.objects.count() > len(before)
    assert tallies.compact() > len(before)
    assert tallies.match_counts() == before == counted()
    assert MatchTally.objects.count() == len(before)  # the states that no match is in left no row either
    assert tallies.compact() == len(before) and tallies.match_counts() == before


class Editor:
    """What the migration's back-fill uses of a schema editor (SQLite opens none inside the test's transaction)."""

    connection = connection

    def execute(self, sql: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql)


def test_the_migration_counts_the_matches_already_there():
    made = [("ladder", "done", ""), ("ladder", "done", ""), ("scrim", "failed", "storing the results failed: x")]
    for kind, status, error in made:
        a_match(kind=kind, status=status, error=error)
    MatchTally.objects.all().delete()  # as before the migration
    migration = importlib.import_module("league.arena.migrations.0019_match_tally")
    migration.backfill(Editor())
    assert tallies.match_counts() == counted()
    assert MatchTally.objects.count() == len(counted())


def test_a_flush_that_emptied_the_tallies_before_the_matches_is_recounted():
    from django.apps import apps
    from django.db.models.signals import post_migrate

    a_match(kind="ladder")
    a_match(kind="scrim", status="failed", error="attempt 3: storing the results failed: x")
    MatchTally.objects.all().delete()  # SQLite's flush empties tables in no fixed order, each with DELETE ...
    Match.objects.all().delete()  # ... which fires the triggers: -1 rows left behind
    assert tallies.match_counts() != counted()
    post_migrate.send(sender=apps.get_app_config("arena"), app_config=apps.get_app_config("arena"), using="default")
    assert tallies.match_counts() == counted() == Counter()
    a_match(kind="tournament", status="failed", error="gave up after 10 runs whose workers stopped; the last: x")
    tallies.recount()
    assert tallies.match_counts() == counted() == Counter({("tournament", "failed", "worker-lost"): 1})
