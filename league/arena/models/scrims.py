"""Scrim requests: an owner's unrated games of its bot against another active bot."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from league.arena.models.bots import Bot, BotVersion


class MatchRequest(models.Model):
    """An owner's request for `games` unrated games of its bot's version against another active bot: a scrim.

    The games are played as matches of a few games each, released by `league.arena.scrims.requests` while the workers
    have no ladder, tournament or validation work waiting; `released` counts the games already put into matches.
    """

    requester = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="match_requests")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="match_requests")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    opponent = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="+")
    opponent_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    games = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    released = models.PositiveIntegerField(default=0, help_text="Games already put into matches.")
    error = models.TextField(blank=True, help_text="Why the request stopped before all its games were played.")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            models.Index(fields=["requester", "created"], name="match_request_requester"),
            models.Index(fields=["bot", "created"], name="match_request_bot"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(released__lte=F("games")), name="match_request_released_le_games"),
            models.CheckConstraint(condition=~Q(bot=F("opponent")), name="match_request_not_against_itself"),
        ]

    def __str__(self) -> str:
        return f"scrim {self.pk}: {self.bot} vs {self.opponent}, {self.games} games"

    def get_absolute_url(self) -> str:
        return reverse("scrim", args=[self.pk])
