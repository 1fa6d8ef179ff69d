"""Ratings and what a refit reads and keeps: pair counts, seat counts, history points, the refit state."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from league.arena.models.bots import BotVersion
from league.arena.models.catalog import (
    GAME_CHOICES,
)


class Rating(models.Model):
    """A version's place on its game's ladder, rewritten by every refit."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, primary_key=True, related_name="rating")
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    elo = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played = models.DateTimeField(null=True, blank=True)
    # The rating at the version's newest history point (league.arena.ladder.history): a refit compares against it
    # without probing the history table once per version.
    point_elo = models.FloatField(null=True, blank=True)
    point_low = models.FloatField(null=True, blank=True)
    point_high = models.FloatField(null=True, blank=True)
    point_games = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["game", "-elo"])]

    @property
    def margin(self) -> float:
        return (self.high - self.low) / 2

    @property
    def provisional(self) -> bool:
        """Too few games, or too wide an interval, for its place on the ladder to be trusted yet."""
        few_games = self.games < settings.ARENA_LADDER_PROVISIONAL_GAMES
        return few_games or self.margin > settings.ARENA_LADDER_PROVISIONAL_MARGIN

    @property
    def win_percent(self) -> float | None:
        return 100.0 * self.wins / self.games if self.games else None


class PairResult(models.Model):
    """The rated games two versions played against each other, counted as they are stored: a refit's input.

    One row per pair, the lower version id `first`; `first_wins`, `second_wins` and `draws` whatever the seats.
    """

    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    first = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    first_wins = models.PositiveIntegerField(default=0)
    second_wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    last_played = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["first", "second"], name="pair_result_unique"),
            models.CheckConstraint(condition=Q(first__lt=F("second")), name="pair_result_first_is_lower"),
        ]
        indexes = [models.Index(fields=["game"])]

    def __str__(self) -> str:
        return f"{self.first_id} vs {self.second_id}: +{self.first_wins} -{self.second_wins} ={self.draws}"


class SeatResult(models.Model):
    """A version's results from one seat in the competitive games it played but its validation, kept on store.

    One row per version and seat (see `league.arena.play.results`): the bot page's win rate by seat reads two rows
    per version instead of every game.
    """

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="seat_results")
    seat = models.PositiveSmallIntegerField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "seat"], name="seat_result_unique")]

    def __str__(self) -> str:
        return f"{self.version_id} seat {self.seat}: +{self.wins} -{self.losses} ={self.draws}"


class ForfeitCount(models.Model):
    """How many of a version's games but its validation it forfeited in one way, kept on store: the game's fault
    seat was the version's, its termination `termination` (one of FORFEITS). The newest and oldest such game are the
    bot page's examples; one row per version and termination, so the page reads a few rows instead of every game."""

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="forfeit_counts")
    termination = models.CharField(max_length=20)
    games = models.PositiveIntegerField(default=0)
    newest_game = models.BigIntegerField()  # game ids, not keys: the count stays what the stores added
    oldest_game = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "termination"], name="forfeit_count_unique")]

    def __str__(self) -> str:
        return f"{self.version_id} {self.termination}: {self.games}"


class RatingPoint(models.Model):
    """One point of a version's rating history: its rating after a refit that changed it (see ladder/history.py)."""

    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="rating_points")
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    elo = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    fitted_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["version", "fitted_at"], name="rating_point_version_time")]

    def __str__(self) -> str:
        return f"{self.version_id} at {self.fitted_at:%Y-%m-%d %H:%M}: {self.elo:.0f}"


class RatingFit(models.Model):
    """The refit state of one game: at most one refit runs (claim_token), `pending` asks for one more.

    See `league.arena.ladder.refits` for the protocol.
    """

    game = models.CharField(max_length=20, choices=GAME_CHOICES, primary_key=True)
    games = models.PositiveIntegerField(default=0, help_text="Rated games the stored ratings were fitted on.")
    fitted_at = models.DateTimeField(null=True, blank=True)
    pending = models.BooleanField(default=False, help_text="Games were stored that no finished refit covered.")
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    claimed_at = models.DateTimeField(null=True, blank=True)
    refit_due_at = models.DateTimeField(
        null=True, blank=True, help_text="When the last refit sent is due (sent plus its countdown)."
    )
    claimed_by = models.CharField(
        max_length=200, blank=True, help_text="The process holding the claim (node:pid), as a match's claimant."
    )


class ScheduleLock(models.Model):
    """One row per game that the ladder scheduler locks, so two schedulers never queue the same free members."""

    game = models.CharField(max_length=20, choices=GAME_CHOICES, primary_key=True)
