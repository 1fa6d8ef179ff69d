"""Matches, their entries, and the games they produce with each game's seats and verified log."""

from __future__ import annotations

import json
import uuid
import zlib
from datetime import timedelta
from typing import Any

import orjson
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

import games
from league.arena.models.bots import BotVersion
from league.arena.models.catalog import (
    FACE_TO_FACE,
    GAME_CHOICES,
    TERMINATION_CHOICES,
)


class LogTampered(Exception):
    """A stored game log no longer replays to the result recorded for it."""


class MatchQuerySet(models.QuerySet):
    def claimable(self, lease: timedelta) -> MatchQuerySet:
        stale = timezone.now() - lease
        return self.filter(Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, heartbeat_at__lt=stale))

    def create_with_entries(self, versions: list[BotVersion], **fields: Any) -> Match:
        """One match with its entries (entry i plays `versions[i]`); see `bulk_create_with_entries`."""
        (match,) = self.bulk_create_with_entries([(Match(**fields), versions)])
        return match

    def bulk_create_with_entries(self, planned: list[tuple[Match, list[BotVersion]]]) -> list[Match]:
        """The one way matches are created: each unsaved match with the versions that play it, in entry order.

        A version may enter a match once (per-entry results are counted per version), and every match needs
        at least one entry; anything else raises ValueError before anything is written.
        """
        for _, versions in planned:
            ids = [version.pk for version in versions]
            if not ids or None in ids:
                raise ValueError(f"a match needs saved versions to play it, got {versions!r}")
            if len(set(ids)) != len(ids):
                raise ValueError(f"a version may enter a match once, got versions {ids}")
        with transaction.atomic():
            stored = self.bulk_create([match for match, _ in planned])
            MatchEntry.objects.bulk_create(
                [
                    MatchEntry(match=match, index=index, version=version)
                    for match, (_, versions) in zip(stored, planned, strict=True)
                    for index, version in enumerate(versions)
                ]
            )
        return stored


class Match(models.Model):
    class Kind(models.TextChoices):
        VALIDATION = "validation", "validation"
        LADDER = "ladder", "ladder"
        TOURNAMENT = "tournament", "tournament"
        EXHIBITION = "exhibition", "exhibition"
        SCRIM = "scrim", "scrim"
        TEST = "test", "version test"

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "withdrawn"  # its tournament was cancelled: never played, or its result dropped

    kind = models.CharField(max_length=12, choices=Kind.choices)
    game = models.CharField(max_length=20, choices=GAME_CHOICES, default=FACE_TO_FACE)
    tournament = models.ForeignKey(
        "Tournament", on_delete=models.CASCADE, null=True, blank=True, related_name="matches"
    )
    match_request = models.ForeignKey(
        "MatchRequest",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="matches",
        help_text="The scrim request this match plays a part of (league.arena.scrims).",
    )
    version_test = models.ForeignKey(
        "VersionTest",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="matches",
        help_text="The version test this match plays a batch of (league.arena.versiontests).",
    )
    versions = models.ManyToManyField(BotVersion, through="MatchEntry", related_name="matches")
    games = models.PositiveIntegerField(validators=[MinValueValidator(1), MaxValueValidator(100_000)])
    players = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Seats per game in the co-op games; empty means one seat per entry."
    )
    seed = models.CharField(max_length=100)
    first_deal = models.PositiveIntegerField(
        default=0, help_text="Game i plays the deal numbered first_deal + i of the seed (a chunk of a season's deals)."
    )
    duplicate = models.BooleanField(default=True)
    turn_seconds = models.FloatField(default=1.0)
    bank_seconds = models.FloatField(default=10.0)
    startup_seconds = models.FloatField(default=5.0)
    rated = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    claimed_by = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveIntegerField(
        default=0, help_text="Runs started, less those handed back for the worker's or the database's sake."
    )
    failures = models.PositiveIntegerField(
        default=0, help_text="Runs that failed for the match's own sake; ARENA_MATCH_MAX_ATTEMPTS caps these."
    )
    games_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    resent_at = models.DateTimeField(
        null=True, blank=True, help_text="When the upkeep last sent it again (its worker died or its message was lost)."
    )
    retry_due_at = models.DateTimeField(
        null=True, blank=True, help_text="When its planned retry (after a failed run) is due; the upkeep waits for it."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["status", "kind"]),
            models.Index(fields=["game", "rated", "status"]),
            # A co-op season finds its chunks' matches by the season's seed (league.arena.coop.challenges).
            models.Index(fields=["seed"], name="match_seed"),
            # The workers seen in the last hour (league.arena.ops.machinery.worker_beats, /metrics/ and its page).
            models.Index(fields=["heartbeat_at"], name="match_heartbeat"),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} ({self.kind}, {self.game})"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])

    def ordered_versions(self) -> list[BotVersion]:
        return [e.version for e in self.entries.select_related("version__bot__owner").order_by("index")]

    def claim(self, worker: str, lease: timedelta, dead_claimant: str = "") -> uuid.UUID | None:
        """Take the match for this worker; None when another worker has it or it is finished.

        The conditional UPDATE touches exactly one row for exactly one claimant, so a match is
        never played twice at once; a claim whose heartbeat stopped (dead worker) can be retaken, and so can,
        at once, one still held by `dead_claimant` (a process known for certain to be gone).
        """
        token = uuid.uuid4()
        now = timezone.now()
        claimable = Match.objects.filter(pk=self.pk).claimable(lease)
        if dead_claimant:
            claimable |= Match.objects.filter(pk=self.pk, status=self.Status.RUNNING, claimed_by=dead_claimant)
        taken = claimable.update(
            status=self.Status.RUNNING,
            claim_token=token,
            claimed_by=worker[:200],
            attempts=F("attempts") + 1,
            games_done=0,
            started_at=now,
            heartbeat_at=now,
        )
        if taken != 1:
            return None
        self.refresh_from_db()
        return token

    def held(self, token: uuid.UUID, lease: timedelta) -> MatchQuerySet:
        """This match, while the claim `token` holds it and its lease is alive (the holder beat within `lease`).

        Past its lease a claim may be retaken at any moment, so its holder may no longer write: a worker frozen
        longer than a lease and resumed finds its match gone even when nobody has claimed it yet.
        """
        alive = timezone.now() - lease
        return Match.objects.filter(pk=self.pk, claim_token=token, status=self.Status.RUNNING, heartbeat_at__gte=alive)

    def heartbeat(self, token: uuid.UUID, games_done: int, lease: timedelta) -> bool:
        """Record progress; False when the claim was lost (another worker took over, or its lease ran out)."""
        return bool(self.held(token, lease).update(heartbeat_at=timezone.now(), games_done=games_done))

    def release(
        self, token: uuid.UUID, error: str, give_up: bool, own_failure: bool = True, retry_in: float | None = None
    ) -> bool:
        """Hand a match whose run broke (not a bot's fault) back to the queue, or fail it for good.

        `own_failure`: the run failed for the match's own sake, which counts toward its cap; otherwise (its worker's
        environment broke, the database went away) the attempt is not counted at all. `retry_in`: seconds until its
        retry is due (the upkeep does not take it for lost before).
        """
        now = timezone.now()
        counted = {"failures": F("failures") + 1} if own_failure else {"attempts": F("attempts") - 1}
        return bool(
            Match.objects.filter(pk=self.pk, claim_token=token, status=self.Status.RUNNING).update(
                status=self.Status.FAILED if give_up else self.Status.QUEUED,
                claim_token=None,
                error=error,
                queued_at=now,
                finished_at=now if give_up else None,
                retry_due_at=None if retry_in is None else now + timedelta(seconds=retry_in),
                **counted,
            )
        )


class MatchEntry(models.Model):
    """One version's place in a match, with its results there (written with the games, see results.py)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="entries")
    index = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="match_entries")
    stderr_tail = models.TextField(blank=True, help_text="Shown to the bot's owner only.")
    games = models.PositiveIntegerField(default=0, editable=False)
    wins = models.PositiveIntegerField(default=0, editable=False)
    losses = models.PositiveIntegerField(default=0, editable=False)
    draws = models.PositiveIntegerField(default=0, editable=False)
    points = models.FloatField(default=0.0, editable=False)

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint("match", "index", name="match_entry_index_unique")]
        # A bot page lists its newest matches: an index-only backward scan instead of walking every match.
        indexes = [models.Index(fields=["version", "match"], name="match_entry_version_match")]
        verbose_name_plural = "match entries"


class Game(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="played_games")
    index = models.PositiveIntegerField()
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    seed = models.CharField(max_length=200)
    start_seat = models.PositiveSmallIntegerField()
    termination = models.CharField(max_length=20, choices=TERMINATION_CHOICES)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    fault_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Co-op games: cards not placed.")
    detail = models.TextField(blank=True)
    turns = models.PositiveIntegerField(default=0)
    log_zlib = models.BinaryField(editable=False)
    log_seal = models.BinaryField(
        max_length=32,
        blank=True,
        default=b"",
        editable=False,
        help_text="HMAC of the game as stored (league.arena.play.seals); empty for games stored before seals.",
    )
    played_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint("match", "index", name="game_index_unique_per_match")]
        indexes = [
            # The forfeited games alone (about 1 in 100), with what a bot page's failure rates ask of them: their
            # join to a bot's seats reads this small index instead of fetching every game the bot played.
            models.Index(
                fields=["id"],
                include=["fault_seat", "termination", "match"],
                condition=Q(fault_seat__isnull=False),
                name="game_forfeits",
            )
        ]

    def __str__(self) -> str:
        return f"game {self.index} of match {self.match_id}"

    def get_absolute_url(self) -> str:
        return reverse("game-log", args=[self.pk])

    @staticmethod
    def compress_log(log: dict[str, Any]) -> bytes:
        return zlib.compress(games.dumps_log(log).encode(), 6)

    def verified_log(self) -> dict[str, Any]:
        """The stored log, re-simulated by the engine; raises LogTampered if it no longer checks out."""
        log = json.loads(zlib.decompress(bytes(self.log_zlib)))
        try:
            outcome = games.replay(log)
        except games.LogMismatch as error:
            raise LogTampered(f"game {self.pk}: the stored log does not replay: {error}") from error
        recorded = (self.termination, self.winner_seat, self.score)
        if (outcome.termination.value, outcome.winner, outcome.score) != recorded:
            raise LogTampered(
                f"game {self.pk}: the log replays to {outcome.termination.value} (winner {outcome.winner}), "
                f"but {self.termination} (winner {self.winner_seat}) was recorded"
            )
        return log


class GameSeat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="game_seats")
    points = models.FloatField(null=True, blank=True, help_text="Competitive games: 1 for a win, 0 for a loss.")

    class Meta:
        ordering = ["game", "seat"]
        constraints = [models.UniqueConstraint("game", "seat", name="game_seat_unique")]
        # A version's newest games first (the bot page), walked backwards and stopped after a page.
        indexes = [models.Index(fields=["version", "game"], name="game_seat_version_game")]


class GameOutput(models.Model):
    """What the bots of a game wrote during each turn and how long each turn took (`bots.turn_output`): private to
    each bot's owner unless the bot's `output_public` is set. Kept apart from the game and its seats, so that no
    page listing games loads a bot's text."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="output", primary_key=True)
    records_zlib = models.BinaryField(editable=False)

    @staticmethod
    def compress(records: list[dict[str, Any]]) -> bytes:
        """The records as compact JSON, deflated. Stored for every game of an uploaded bot, so it is made cheaply:
        orjson (some 15 times faster than the json module for these records), and a deflate window no larger
        than the text needs (up to zlib's 32 KiB): the same bytes out as the full window, without setting up 32 KiB
        of it for the usual one or two KiB (that set-up cost more than all the rest)."""
        try:
            text = orjson.dumps(records)
        except orjson.JSONEncodeError:  # what orjson refuses (an integer beyond 64 bits): the json module's text
            text = json.dumps(records, ensure_ascii=False, separators=(",", ":")).encode()
        packer = zlib.compressobj(6, zlib.DEFLATED, min(15, max(9, len(text).bit_length())))
        return packer.compress(text) + packer.flush()

    def records(self) -> list[dict[str, Any]]:
        """One record per turn (and turn 0, the set-up): turn, seat, bot, ms, stderr and, past the caps, dropped."""
        return json.loads(zlib.decompress(bytes(self.records_zlib)))
