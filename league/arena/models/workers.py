"""The health of each worker's own environment, apart from the matches it plays (league.arena.play.hosts)."""

from __future__ import annotations

from django.db import models


class WorkerHealth(models.Model):
    """A worker (its Celery node) whose environment broke: it plays nothing until its self-check passes again.

    A row is written when a run fails for the worker's own sake (full or read-only scratch, no file descriptors or
    memory left, the sandbox unavailable) and the self-check confirms it; `sick` goes back to False when the
    check passes and the worker consumes its queues again. The machinery page shows both.
    """

    name = models.CharField(max_length=200, primary_key=True, help_text="The Celery node, e.g. w1@host.")
    sick = models.BooleanField(default=False)
    reason = models.TextField(blank=True, help_text="What the failed run and the self-check said.")
    since = models.DateTimeField(help_text="When it fell sick (or, once well, when it last did).")
    checked_at = models.DateTimeField(help_text="Its last self-check.")
    recovered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "worker health"

    def __str__(self) -> str:
        return f"{self.name}: {'sick' if self.sick else 'well'}"
