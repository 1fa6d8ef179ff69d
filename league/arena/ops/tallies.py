"""Match counts from the tallies the match table's triggers keep (league/arena/models/tallies.py)."""

from __future__ import annotations

from collections import Counter

from django.db import connection, transaction
from django.db.models import Sum

from league.arena.models import MatchTally


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
