"""Match counts from the tallies the match table's triggers keep (league/arena/models/tallies.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import connection, connections, transaction
from django.db.models import Case, Count, Q, Sum, Value, When
from django.db.models.signals import post_migrate
from django.dispatch import receiver

from league.arena.models import Match, MatchTally

# What a failed match's error says about the step that broke (league/arena/play/matches.py), first found first; as
# the triggers of migration 0019 classify it.
REASONS = [
    ("runs whose workers stopped", "worker-lost"),
    ("storing the results failed", "storing"),
    ("the match runner failed", "runner"),
    ("stopped before it could say why", "worker-lost"),
]


def match_counts() -> Counter[tuple[str, str, str]]:
    """Matches now in each (kind, status, reason) state; reason is '' but for failed matches. States without a
    match are left out."""
    rows = MatchTally.objects.order_by().values_list("kind", "status", "reason").annotate(total=Sum("n"))
    return Counter({(kind, status, reason): total for kind, status, reason, total in rows if total})


def compact() -> int:
    """Fold the tally rows into one per state (dropping states that sum to nothing); how many rows were folded.

    Only rows already committed are deleted and their sums written back in the same transaction, so a change
    committed meanwhile keeps its own row and nothing is counted twice or lost."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM arena_matchtally RETURNING kind, status, reason, n")
        folded = cursor.fetchall()
        sums: Counter[tuple[str, str, str]] = Counter()
        for kind, status, reason, n in folded:
            sums[(kind, status, reason)] += n
        MatchTally.objects.bulk_create(
            MatchTally(kind=kind, status=status, reason=reason, n=n) for (kind, status, reason), n in sums.items() if n
        )
    return len(folded)


def recount(using: str = "default") -> None:
    """Replace the tallies with a count of the match table itself (one grouped query)."""
    reason = Case(
        When(~Q(status=Match.Status.FAILED), then=Value("")),
        *(When(error__contains=text, then=Value(name)) for text, name in REASONS),
        default=Value("other"),
    )
    states = (
        Match.objects.using(using)
        .order_by()
        .annotate(reason=reason)
        .values_list("kind", "status", "reason")
        .annotate(n=Count("pk"))
    )
    with transaction.atomic(using=using):
        MatchTally.objects.using(using).all().delete()
        MatchTally.objects.using(using).bulk_create(
            MatchTally(kind=kind, status=status, reason=reason, n=n) for kind, status, reason, n in states
        )


@receiver(post_migrate)
def recount_after_flush(sender: Any, using: str = "default", plan: list | None = None, **kwargs: Any) -> None:
    """After a flush (which sends post_migrate without a migration plan): SQLite empties tables with DELETE, which
    fires the match triggers, before or after it empties the tallies in no fixed order, so a flush could leave -1
    rows. Not after a migrate: the triggers count a live league's changes, which a recount could race with."""
    if plan is not None or getattr(sender, "label", None) != "arena":
        return
    if MatchTally._meta.db_table not in connections[using].introspection.table_names():
        return  # migrated back to before the tallies
    recount(using)
