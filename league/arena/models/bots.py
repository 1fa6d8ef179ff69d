"""Bots and their versions: who may play (the ladder rule), each version's upload kept apart from its row."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone

from league.arena.lib import signals
from league.arena.models.catalog import (
    FACE_TO_FACE,
    GAME_CHOICES,
)

BOT_NAME_RULE = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$",
    "Use 1 to 40 letters, digits, '-' or '_', starting with a letter or digit.",
)


def allowed_condition() -> Q:
    """Bots the staff let play: the bot is not disabled and its owner's account is active (the house bots' owner
    never logs in, so its account is inactive on purpose: house bots are exempt)."""
    return Q(disabled_at__isnull=True) & (Q(owner__is_active=True) | ~Q(house_ref=""))


def ladder_condition() -> Q:
    """Which bots play on their game's ladder: the one rule that scheduling, leaderboards, ranks, tournaments'
    entrants, co-op seasons and the API all apply (through `Bot.objects.on_ladder()`).

    A bot is on the ladder while it has a version that passed validation, its owner has not retired it, it is not
    paused for forfeits (ladder/forfeits.py), and the staff allow it (`allowed_condition`: validations apply that
    part alone, so a retired or paused bot's new version is still validated and it can come back).
    """
    return Q(active_version__isnull=False, retired_at__isnull=True, paused_at__isnull=True) & allowed_condition()


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
    paused_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Paused for forfeits: off the ladder until its owner resumes it or uploads a fix.",
    )
    paused_reason = models.CharField(max_length=300, blank=True, help_text="Why it was paused: shown on its page.")
    resumed_at = models.DateTimeField(
        null=True, blank=True, help_text="Its owner last resumed it: forfeits are counted from then on."
    )
    output_public = models.BooleanField(
        default=False,
        help_text="Everyone sees what the bot writes in each turn beside its replays (else its owner alone).",
    )
    analyse_losses = models.BooleanField(
        default=False, help_text="The house expert analyses every rated game the bot loses (within its owner's limit)."
    )

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
        return (
            self.active_version_id is not None
            and self.retired_at is None
            and self.paused_at is None
            and self.is_allowed
        )

    def newest_active_version(self) -> BotVersion | None:
        return self.versions.filter(status=BotVersion.Status.ACTIVE).order_by("-number").first()

    def refresh_active_version(self) -> bool:
        """Point `active_version` at the newest active version; True (and the leaderboard told) if it changed."""
        newest = self.newest_active_version()
        # a new version (a fix) ends a pause for forfeits: it is on the ladder on its own record
        changed = (
            Bot.objects.filter(pk=self.pk)
            .exclude(active_version=newest)
            .update(active_version=newest, paused_at=None, paused_reason="")
        )
        self.active_version = newest
        if changed:
            self.paused_at, self.paused_reason = None, ""
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
            signals.send_validation_finished(self.bot.owner_id, self.pk, passed)
        return bool(updated)


class BotUpload(models.Model):
    """A version's uploaded file, in a table of its own: only the worker that unpacks it reads it."""

    version = models.OneToOneField(BotVersion, on_delete=models.CASCADE, primary_key=True, related_name="upload")
    content = models.BinaryField()

    def __str__(self) -> str:
        return f"upload of {self.version_id}"
