"""Bots, their versions, the matches they play, the games those produce, tournaments and ratings.

Every game points at the exact bot versions that played it (a version is a sha256 of its upload),
and a version's code is kept in the database (`BotUpload`, apart from the version row so no page loads it by
accident) so any worker on any host can run it.

Results are also kept as aggregates, written in the same transaction as the games (see `league.arena.results`):
`MatchEntry` counts each entry's wins, losses, draws and points, and `PairResult` counts the rated games of every
pair of versions, so refits, leaderboards and tournament tables never read the games themselves.
"""

from __future__ import annotations

import json
import uuid
import zlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import connection, models, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

import games
from league.arena.lib import signals

FACE_TO_FACE = games.FACE_TO_FACE
GAME_NAMES = dict(games.GAME_NAMES)
GAME_CHOICES = list(GAME_NAMES.items())
COMPETITIVE_GAMES = {FACE_TO_FACE}
TERMINATION_CHOICES = [(termination.value, termination.value) for termination in games.Termination]
FORFEITS = games.FORFEITS  # the terminations where a bot lost by its own fault (members compare equal to their text)

BOT_NAME_RULE = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$",
    "Use 1 to 40 letters, digits, '-' or '_', starting with a letter or digit.",
)


class LogTampered(Exception):
    """A stored game log no longer replays to the result recorded for it."""


def allowed_condition() -> Q:
    """Bots the staff let play: the bot is not disabled and its owner's account is active (the house bots' owner
    never logs in, so its account is inactive on purpose: house bots are exempt)."""
    return Q(disabled_at__isnull=True) & (Q(owner__is_active=True) | ~Q(house_ref=""))


def ladder_condition() -> Q:
    """Which bots play on their game's ladder: the one rule that scheduling, leaderboards, ranks, tournaments'
    entrants, co-op seasons and the API all apply (through `Bot.objects.on_ladder()`).

    A bot is on the ladder while it has a version that passed validation, its owner has not retired it, and the
    staff allow it (`allowed_condition`: validations apply that part alone, so a retired bot's new version is
    still validated and it can come back).
    """
    return Q(active_version__isnull=False, retired_at__isnull=True) & allowed_condition()


class BotQuerySet(models.QuerySet):
    def on_ladder(self) -> BotQuerySet:
        """The bots that play on their game's ladder (see `ladder_condition`)."""
        return self.filter(ladder_condition())

    def allowed(self) -> BotQuerySet:
        """The bots whose code the staff let run: not disabled, nor of a disabled account (see `allowed_condition`)."""
        return self.filter(allowed_condition())

    def ladder_versions(self) -> models.QuerySet:
        """The ladder version of each of these bots that is on the ladder, as a subquery of version ids."""
        return self.on_ladder().values("active_version")


class Bot(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    name = models.CharField(max_length=40, validators=[BOT_NAME_RULE])
    game = models.CharField(max_length=20, choices=GAME_CHOICES, default=FACE_TO_FACE)
    description = models.TextField(blank=True, max_length=2000)
    house_ref = models.CharField(
        max_length=40, blank=True, help_text="Set for the house bots that ship with the runner, e.g. house:greedy."
    )
    active_version = models.ForeignKey(
        "BotVersion",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="active_for",
        editable=False,
        help_text="The newest active version: the one on the ladder. Kept by refresh_active_version().",
    )
    created = models.DateTimeField(default=timezone.now)
    retired_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Its owner took it off the ladder; its games stay. The owner may bring it back.",
    )
    disabled_at = models.DateTimeField(
        null=True, blank=True, help_text="The staff took it off the ladder and refuse its uploads; its games stay."
    )
    disabled_reason = models.CharField(max_length=200, blank=True, help_text="Shown on the bot's page.")

    objects = BotQuerySet.as_manager()

    class Meta:
        ordering = ["owner__username", "name"]
        constraints = [models.UniqueConstraint("owner", Lower("name"), name="bot_name_unique_per_owner")]
        indexes = [models.Index(fields=["game", "active_version"])]

    def __str__(self) -> str:
        return self.full_name

    @property
    def full_name(self) -> str:
        return f"{self.owner.username}/{self.name}"

    def get_absolute_url(self) -> str:
        return reverse("bot", args=[self.pk])

    @property
    def is_allowed(self) -> bool:
        """`allowed_condition` for this one bot, as loaded (with its owner)."""
        return self.disabled_at is None and (self.owner.is_active or bool(self.house_ref))

    @property
    def is_on_ladder(self) -> bool:
        """`ladder_condition` for this one bot, as loaded (with its owner)."""
        return self.active_version_id is not None and self.retired_at is None and self.is_allowed

    def newest_active_version(self) -> BotVersion | None:
        return self.versions.filter(status=BotVersion.Status.ACTIVE).order_by("-number").first()

    def refresh_active_version(self) -> bool:
        """Point `active_version` at the newest active version; True (and the leaderboard told) if it changed."""
        newest = self.newest_active_version()
        changed = Bot.objects.filter(pk=self.pk).exclude(active_version=newest).update(active_version=newest)
        self.active_version = newest
        if changed:
            signals.send_leaderboard_changed(self.game)
        return bool(changed)

    def next_version_number(self) -> int:
        newest = self.versions.order_by("-number").values_list("number", flat=True).first()
        return (newest or 0) + 1


class BotVersionQuerySet(models.QuerySet):
    def on_ladder(self) -> BotVersionQuerySet:
        """The versions that play on the ladder now: each ladder bot's `active_version` (see `ladder_condition`)."""
        return self.filter(pk__in=Bot.objects.ladder_versions())


class BotVersion(models.Model):
    class Status(models.TextChoices):
        VALIDATING = "validating", "validating"
        ACTIVE = "active", "active"
        FAILED = "failed", "failed validation"

    class Kind(models.TextChoices):
        PY = "py", "Python file"
        ZIP = "zip", "zip archive"
        HOUSE = "house", "house bot"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    filename = models.CharField(max_length=200, blank=True)
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.VALIDATING)
    failure_reason = models.TextField(blank=True)
    stderr_tail = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    validated_at = models.DateTimeField(null=True, blank=True)
    pruned_at = models.DateTimeField(
        null=True, blank=True, help_text="Its upload was deleted by its owner; its games and hash stay."
    )

    objects = BotVersionQuerySet.as_manager()

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [
            models.UniqueConstraint("bot", "number", name="version_number_unique_per_bot"),
            models.UniqueConstraint("bot", "sha256", name="version_content_unique_per_bot"),
        ]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.bot.full_name} v{self.number}"

    @property
    def label(self) -> str:
        return f"v{self.number}"

    @property
    def version_id(self) -> str:
        """The version string logs and the runner use: the sha256 of the upload."""
        return f"sha256:{self.sha256}"

    @property
    def short_sha(self) -> str:
        return self.sha256[:12]

    def mark_validated(self, passed: bool, reason: str = "", stderr_tail: str = "") -> bool:
        """Move a validating version to active or failed; False when it was already decided."""
        status = self.Status.ACTIVE if passed else self.Status.FAILED
        updated = BotVersion.objects.filter(pk=self.pk, status=self.Status.VALIDATING).update(
            status=status, failure_reason=reason, stderr_tail=stderr_tail, validated_at=timezone.now()
        )
        if updated:
            self.refresh_from_db(fields=["status", "failure_reason", "stderr_tail", "validated_at"])
            self.bot.refresh_active_version()
            signals.send_validation_finished(self.bot.owner_id)
        return bool(updated)


class BotUpload(models.Model):
    """A version's uploaded file, in a table of its own: only the worker that unpacks it reads it."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, primary_key=True, related_name="upload")
    content = models.BinaryField()

    def __str__(self) -> str:
        return f"upload of {self.version_id}"


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

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "withdrawn"  # its tournament was cancelled: never played, or its result dropped

    kind = models.CharField(max_length=12, choices=Kind.choices)
    game = models.CharField(max_length=20, choices=GAME_CHOICES, default=FACE_TO_FACE)
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, null=True, blank=True, related_name="matches")
    match_request = models.ForeignKey(
        "MatchRequest",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="matches",
        help_text="The scrim request this match plays a part of (league.arena.scrims).",
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
    attempts = models.PositiveIntegerField(default=0)
    games_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["status", "kind"]),
            models.Index(fields=["game", "rated", "status"]),
            # A co-op season finds its chunks' matches by the season's seed (league.arena.challenges).
            models.Index(fields=["seed"], name="match_seed"),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} ({self.kind}, {self.game})"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])

    def ordered_versions(self) -> list[BotVersion]:
        return [e.version for e in self.entries.select_related("version__bot__owner").order_by("index")]

    def claim(self, worker: str, lease: timedelta) -> uuid.UUID | None:
        """Take the match for this worker; None when another worker has it or it is finished.

        The conditional UPDATE touches exactly one row for exactly one claimant, so a match is
        never played twice at once; a claim whose heartbeat stopped (dead worker) can be retaken.
        """
        token = uuid.uuid4()
        now = timezone.now()
        taken = (
            Match.objects.filter(pk=self.pk)
            .claimable(lease)
            .update(
                status=self.Status.RUNNING,
                claim_token=token,
                claimed_by=worker[:200],
                attempts=F("attempts") + 1,
                games_done=0,
                started_at=now,
                heartbeat_at=now,
            )
        )
        if taken != 1:
            return None
        self.refresh_from_db()
        return token

    def heartbeat(self, token: uuid.UUID, games_done: int) -> bool:
        """Record progress; False when the claim was lost (another worker took over)."""
        return bool(
            Match.objects.filter(pk=self.pk, claim_token=token, status=self.Status.RUNNING).update(
                heartbeat_at=timezone.now(), games_done=games_done
            )
        )

    def release(self, token: uuid.UUID, error: str, give_up: bool) -> bool:
        """Hand a match whose run broke (not a bot's fault) back to the queue, or fail it for good."""
        return bool(
            Match.objects.filter(pk=self.pk, claim_token=token, status=self.Status.RUNNING).update(
                status=self.Status.FAILED if give_up else self.Status.QUEUED,
                claim_token=None,
                error=error,
                queued_at=timezone.now(),
                finished_at=timezone.now() if give_up else None,
            )
        )


class MatchRequest(models.Model):
    """An owner's request for `games` unrated games of its bot's version against another active bot: a scrim.

    The games are played as matches of a few games each, released by `league.arena.scrims` while the workers have
    no ladder, tournament or validation work waiting; `released` counts the games already put into matches.
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
    played_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "index"]
        constraints = [models.UniqueConstraint("match", "index", name="game_index_unique_per_match")]

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
    # The rating at the version's newest history point (league.arena.history): a refit compares against it
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

    One row per version and seat (see `league.arena.results`): the bot page's win rate by seat reads two rows
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


class RatingPoint(models.Model):
    """One point of a version's rating history: its rating after a refit that changed it (league.arena.history)."""

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

    See `league.arena.refits` for the protocol.
    """

    game = models.CharField(max_length=20, choices=GAME_CHOICES, primary_key=True)
    games = models.PositiveIntegerField(default=0, help_text="Rated games the stored ratings were fitted on.")
    fitted_at = models.DateTimeField(null=True, blank=True)
    pending = models.BooleanField(default=False, help_text="Games were stored that no finished refit covered.")
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    claimed_at = models.DateTimeField(null=True, blank=True)


class ScheduleLock(models.Model):
    """One row per game that the ladder scheduler locks, so two schedulers never queue the same free members."""

    game = models.CharField(max_length=20, choices=GAME_CHOICES, primary_key=True)


# --- The co-op games' challenge ladders: seasons of published deals (see league.arena.challenges) ------------

COOP_GAMES = tuple(game for game, _ in GAME_CHOICES if game not in COMPETITIVE_GAMES)
TEAM_SIZES = (1, 2, 3, 4, 5)
CARDS_IN_DECK = 98


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

    def rating_key(self, players: int) -> str:
        """The key of this season's ladder of `players`-seat teams in the refit machinery (RatingFit.game)."""
        return f"coop:{self.pk}:{players}"


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
