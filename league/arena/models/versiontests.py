"""Version tests: is a bot's NEW version stronger than BASE? A sequential test (bots.sprt) played in batches."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from league.arena.models.bots import Bot, BotVersion
from league.arena.models.catalog import FACE_TO_FACE, GAME_CHOICES


class VersionTest(models.Model):
    """An owner's test of `version` (NEW) against `base_version` (BASE): unrated batches until the SPRT decides.

    Each batch is one unrated match (Face to Face: a duplicate match of `batch_pairs` pairs; co-op: NEW's team and
    BASE's team on the same deals, two matches). `released` counts the samples (pairs or shared deals) already put
    into matches; `counts`, `llr` and `history` are folded in after each stored batch (league.arena.versiontests).
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        CANCELLED = "cancelled", "cancelled"
        FAILED = "failed", "failed"

    class Model(models.TextChoices):
        NORMALIZED = "normalized", "normalized Elo"
        LOGISTIC = "logistic", "logistic Elo"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="version_tests")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="version_tests")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    base_bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="+")
    base_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    game = models.CharField(max_length=20, choices=GAME_CHOICES, default=FACE_TO_FACE)
    players = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(5)], help_text="Co-op: the team size."
    )
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=5.0)
    elo_model = models.CharField(max_length=10, choices=Model.choices, default=Model.NORMALIZED)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField(validators=[MinValueValidator(2)])
    batch_pairs = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    seed = models.CharField(max_length=100)
    public = models.BooleanField(default=False, help_text="Anyone may see the test; otherwise its owner and staff.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    released = models.PositiveIntegerField(default=0, help_text="Samples (pairs or shared deals) put into matches.")
    counts = models.JSONField(default=list, help_text="Pentanomial (5) or trinomial (3) counts, NEW's side.")
    batches = models.PositiveIntegerField(default=0, help_text="Batches folded into the counts (the update's guard).")
    llr = models.FloatField(default=0.0)
    verdict = models.CharField(max_length=2, blank=True, help_text="H1, H0, or empty (none yet, or none at the cap).")
    history = models.JSONField(default=list, help_text="[games, llr] after each folded batch.")
    error = models.TextField(blank=True, help_text="Why the test stopped before a verdict or its cap.")
    created = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            models.Index(fields=["owner", "status"], name="version_test_owner_status"),
            models.Index(fields=["bot", "created"], name="version_test_bot"),
            models.Index(fields=["status"], name="version_test_status"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(version=F("base_version")), name="version_test_not_against_itself"),
            models.CheckConstraint(condition=Q(elo0__lt=F("elo1")), name="version_test_elo0_below_elo1"),
        ]

    def __str__(self) -> str:
        return f"test {self.pk}: {self.version} vs {self.base_version}"

    def get_absolute_url(self) -> str:
        return reverse("version-test", args=[self.pk])

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.CANCELLED, self.Status.FAILED)
