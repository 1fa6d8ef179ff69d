"""Game analyses: the house expert's judgement of every turn of a stored game (`bots.analysis`), one per game and
precision, shared by everyone who asks (league.arena.analysis)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from league.arena.models.matches import Game


class GameAnalysis(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="analyses")
    rollouts = models.PositiveIntegerField(help_text="Rollouts per turn at most (the analysis's precision).")
    horizon = models.PositiveSmallIntegerField(help_text="Turns of expert play in each rollout before the leaf model.")
    seed = models.CharField(max_length=40, default="0")
    engine = models.CharField(
        max_length=40, default="", help_text="bots.analysis.engine.engine_version() of the engine that made it."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    turns_done = models.PositiveIntegerField(default=0)
    turns_total = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True, help_text="bots.analysis.GameAnalysis.to_json(), once done.")
    marked = models.JSONField(
        default=list, blank=True, help_text="Its mistakes and blunders, {turn, seat, mark, loss}: what bot pages list."
    )
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="game_analyses"
    )
    automatic = models.BooleanField(default=False, help_text="Asked for by its owner's opt-in on a lost rated game.")
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    attempts = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(default=timezone.now)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                "game", "rollouts", "horizon", "seed", "engine", name="game_analysis_unique_precision_engine"
            )
        ]
        # The per-user daily limit counts a user's newest requests.
        indexes = [models.Index(fields=["requested_by", "created"], name="game_analysis_requester")]
        verbose_name_plural = "game analyses"

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.rollouts} rollouts)"

    def get_absolute_url(self) -> str:
        return reverse("game", args=[self.game_id])

    def claim(self, lease: timedelta) -> uuid.UUID | None:
        """Take the analysis for this worker: queued, or running with a heartbeat older than `lease` (a dead
        worker). None when another worker has it or it is finished."""
        token = uuid.uuid4()
        now = timezone.now()
        stale = Q(status=self.Status.RUNNING, heartbeat_at__lt=now - lease)
        taken = GameAnalysis.objects.filter(Q(status=self.Status.QUEUED) | stale, pk=self.pk).update(
            status=self.Status.RUNNING, claim_token=token, heartbeat_at=now, turns_done=0, attempts=F("attempts") + 1
        )
        if taken != 1:
            return None
        self.refresh_from_db()
        return token

    def progress(self, token: uuid.UUID, done: int, total: int) -> bool:
        """Record turns done; False when the claim was lost."""
        return bool(
            GameAnalysis.objects.filter(pk=self.pk, claim_token=token, status=self.Status.RUNNING).update(
                turns_done=done, turns_total=total, heartbeat_at=timezone.now()
            )
        )
