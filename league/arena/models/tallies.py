"""Match counts kept by the database itself, so that /metrics/ reads a few dozen rows instead of the match table.

Triggers on the match table (migration 0019) add a row here for every match inserted (+1), deleted (-1) and every
change of its kind, status or failure reason (-1 for the old, +1 for the new), in the transaction that makes the
change: every path counts (the ORM's updates, cascades, the admin, raw SQL, COPY), a rolled-back change takes its
rows with it, and no two transactions wait on each other (each only inserts). The sum of `n` per (kind, status,
reason) is the number of matches in that state; `league.arena.ops.tallies.compact` folds the rows into one per key.
"""

from __future__ import annotations

from django.db import models


class MatchTally(models.Model):
    kind = models.CharField(max_length=12)
    status = models.CharField(max_length=10)
    reason = models.CharField(
        max_length=16, blank=True, help_text="A failed match's broken step (runner, storing, worker-lost, other)."
    )
    n = models.BigIntegerField(help_text="Matches added to (positive) or taken from (negative) this state.")

    class Meta:
        verbose_name_plural = "match tallies"

    def __str__(self) -> str:
        return f"{self.kind}/{self.status}/{self.reason}: {self.n:+d}"
