"""Tournaments and their entrants."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import connection, models, transaction
from django.db.models import Exists, F, OuterRef
from django.urls import reverse
from django.utils import timezone

from league.arena.lib import signals
from league.arena.models.bots import Bot, BotVersion
from league.arena.models.catalog import (
    COMPETITIVE_GAMES,
    FACE_TO_FACE,
    GAME_CHOICES,
)
from league.arena.models.matches import Match


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round-robin", "round robin"
        DOUBLE_ROUND_ROBIN = "double-round-robin", "double round robin"
        SOLO_DEALS = "solo-deals", "solo deals (co-op)"
        PAIRS = "pairs", "pairs (co-op)"

    class Status(models.TextChoices):
        DRAFT = "draft", "not started"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    name = models.CharField(max_length=100)
    game = models.CharField(max_length=20, choices=GAME_CHOICES, default=FACE_TO_FACE)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.ROUND_ROBIN)
    games_per_pairing = models.PositiveIntegerField(default=10, validators=[MinValueValidator(1)])
    duplicate = models.BooleanField(
        default=True, help_text="Each deal is played twice with the seats swapped, cancelling the luck of the deal."
    )
    turn_seconds = models.FloatField(default=1.0, validators=[MinValueValidator(0.001)])
    bank_seconds = models.FloatField(default=10.0, validators=[MinValueValidator(0.0)])
    startup_seconds = models.FloatField(default=5.0, validators=[MinValueValidator(0.001)])
    scheduled_at = models.DateTimeField(
        null=True, blank=True, help_text="Starts by itself at this time; leave empty to start it by hand."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    registration_open = models.BooleanField(
        default=False, help_text="Owners may enter their own active bots of this game until it starts or this closes."
    )
    created = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.pk])

    @property
    def pairing_rounds(self) -> int:
        return 2 if self.format == self.Format.DOUBLE_ROUND_ROBIN else 1

    COOP_FORMATS = frozenset({Format.SOLO_DEALS, Format.PAIRS})

    @property
    def is_coop(self) -> bool:
        return self.format in self.COOP_FORMATS

    def clean(self) -> None:
        if self.is_coop and self.game in COMPETITIVE_GAMES:
            raise ValidationError({"format": "Solo deals and pairs are formats of the co-op games."})
        if not self.is_coop and self.game not in COMPETITIVE_GAMES:
            raise ValidationError({"format": "The co-op games are played as solo deals or pairs."})

    def progress(self) -> tuple[int, int]:
        """(games played, games in all) over the tournament's matches."""
        totals = self.matches.aggregate(
            planned=models.Sum("games"),
            played=models.Sum(
                models.Case(
                    models.When(status=Match.Status.DONE, then=F("games")),
                    default=F("games_done"),
                )
            ),
        )
        return totals["played"] or 0, totals["planned"] or 0

    def mark_finished_if_done(self) -> bool:
        """Finish the tournament if it runs and none of its matches is still to play, in one conditional UPDATE.

        The row lock first makes this wait for a re-run that is queueing failed matches again: a check and an
        update in two steps (or an UPDATE that waited on the lock with its older snapshot) could finish a
        tournament whose matches had just been queued."""
        still_to_play = Match.objects.filter(tournament=OuterRef("pk")).exclude(
            status__in=[Match.Status.DONE, Match.Status.FAILED]
        )
        with transaction.atomic():
            if connection.features.has_select_for_update:
                list(Tournament.objects.select_for_update().filter(pk=self.pk).values_list("pk"))
            finished = (
                Tournament.objects.filter(pk=self.pk, status=self.Status.RUNNING)
                .exclude(Exists(still_to_play))
                .update(status=self.Status.FINISHED, finished_at=timezone.now())
            )
        if finished:
            signals.send_tournament_changed(self.pk)
        return bool(finished)


class TournamentEntry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="tournament_entries")
    version = models.ForeignKey(
        BotVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournament_entries",
        help_text="Frozen to the bot's newest active version when the tournament starts.",
    )

    class Meta:
        ordering = ["tournament", "pk"]
        constraints = [models.UniqueConstraint("tournament", "bot", name="one_entry_per_bot")]
        verbose_name_plural = "tournament entries"

    def __str__(self) -> str:
        return f"{self.bot} in {self.tournament}"
