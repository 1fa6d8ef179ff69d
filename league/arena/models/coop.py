"""The co-op games' challenge ladders: seasons of published deals, their results, comparisons and ratings
(see league.arena.coop.challenges)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from league.arena.models.bots import BotVersion
from league.arena.models.catalog import (
    COOP_GAMES,
    GAME_NAMES,
    TEAM_SIZES,
)
from league.arena.models.matches import Game


def default_team_sizes() -> list[int]:
    return list(TEAM_SIZES)


def valid_team_sizes(value: Any) -> None:
    if not isinstance(value, list) or not value or any(size not in TEAM_SIZES for size in value):
        raise ValidationError(f"team sizes are a non-empty list of numbers from 1 to 5, got {value!r}")
    if len(set(value)) != len(value):
        raise ValidationError(f"team sizes must not repeat, got {value!r}")


class Season(models.Model):
    """A co-op game's published list of deals: deal d is dealt from the seed `<seed>:<d>` (the runner's own rule),
    so the whole list is derivable from `seed` and `deals` alone. Every ladder bot plays every deal, alone and in
    each self-play team size of `team_sizes`, `chunk` deals per match."""

    game = models.CharField(max_length=20, choices=[(game, GAME_NAMES[game]) for game in COOP_GAMES])
    number = models.PositiveIntegerField()
    seed = models.CharField(max_length=60, unique=True)
    deals = models.PositiveIntegerField(default=1000, validators=[MinValueValidator(1), MaxValueValidator(100_000)])
    chunk = models.PositiveIntegerField(
        default=100, validators=[MinValueValidator(1), MaxValueValidator(1000)], help_text="Deals per match."
    )
    team_sizes = models.JSONField(default=default_team_sizes, validators=[valid_team_sizes])
    current = models.BooleanField(default=False)
    started_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "-number"]
        constraints = [
            models.UniqueConstraint("game", "number", name="season_number_unique_per_game"),
            models.UniqueConstraint("game", condition=Q(current=True), name="one_current_season_per_game"),
        ]

    def __str__(self) -> str:
        return f"{GAME_NAMES[self.game]} season {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("season", args=[self.pk])

    def deal_seed(self, deal: int) -> str:
        if not 0 <= deal < self.deals:
            raise ValueError(f"{self} has deals 0 to {self.deals - 1}, not {deal}")
        return f"{self.seed}:{deal}"

    def seeds(self) -> list[str]:
        return [f"{self.seed}:{deal}" for deal in range(self.deals)]


class DealResult(models.Model):
    """One version's result on one deal of a season, alone or as a self-play team of `players` copies."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="results")
    players = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="deal_results")
    deal = models.PositiveIntegerField()
    cards_left = models.PositiveSmallIntegerField()
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="deal_result")

    class Meta:
        constraints = [
            models.UniqueConstraint("season", "players", "version", "deal", name="deal_result_unique"),
        ]
        indexes = [models.Index(fields=["season", "players", "deal"])]


class SeasonStanding(models.Model):
    """A version's results on a season's ladder of `players`-seat teams, summed as they are stored."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    players = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="season_standings")
    deals = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    cards_left = models.PositiveIntegerField(default=0, help_text="The sum over the deals played.")
    histogram = models.JSONField(default=list, help_text="histogram[n]: deals that ended with n cards left.")

    class Meta:
        constraints = [models.UniqueConstraint("season", "players", "version", name="season_standing_unique")]


class DealPair(models.Model):
    """Duplicate comparisons of two versions over the deals both played (fewer cards left wins): a refit's input."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="pairs")
    players = models.PositiveSmallIntegerField()
    first = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    first_wins = models.PositiveIntegerField(default=0)
    second_wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    last_played = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint("season", "players", "first", "second", name="deal_pair_unique"),
            models.CheckConstraint(condition=Q(first__lt=F("second")), name="deal_pair_first_is_lower"),
        ]


class SeasonRating(models.Model):
    """A version's Elo on a season's ladder of `players`-seat teams, rewritten by every refit of that ladder."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="ratings")
    players = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="season_ratings")
    elo = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    comparisons = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint("season", "players", "version", name="season_rating_unique")]
