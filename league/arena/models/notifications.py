"""What an owner is told about their bots (league.arena.notifications), and how each user wants to be told."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Notification(models.Model):
    """One thing a user was told: a line of text and where to look, unread until they open or mark it."""

    class Kind(models.TextChoices):
        VERSION_VALIDATED = "version-validated", "a version passed its validation"
        VERSION_FAILED = "version-failed", "a version failed its validation"
        BOT_PAUSED = "bot-paused", "a bot was paused for forfeiting games"
        SCRIM_FINISHED = "scrim-finished", "a scrim finished"
        TOURNAMENT_FINISHED = "tournament-finished", "a tournament you entered finished"
        TEST_VERDICT = "test-verdict", "a version test reached its verdict"
        ANALYSIS_FINISHED = "analysis-finished", "a game analysis you asked for finished"

    class Email(models.TextChoices):
        NONE = "", "not sent"  # the user chose the site only, has no address, or the server sends no e-mail
        PENDING = "pending", "to send"
        SENT = "sent", "sent"
        FAILED = "failed", "could not be sent"

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    text = models.CharField(max_length=500)
    url = models.CharField(max_length=500, blank=True, help_text="A path on the site, e.g. /bots/7/#versions.")
    key = models.CharField(
        max_length=100, blank=True, help_text="Names the event told: a second notice with the same key is not sent."
    )
    created = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    email = models.CharField(max_length=8, choices=Email.choices, blank=True, default=Email.NONE)
    email_asked_at = models.DateTimeField(null=True, blank=True, help_text="When its e-mail was last queued.")
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint("recipient", "key", condition=~Q(key=""), name="notification_key_once_per_user"),
        ]
        indexes = [
            # The navigation's unread count and the list page: one user's notices, newest first.
            models.Index(fields=["recipient", "-created"], name="notification_recipient_new"),
            models.Index(fields=["recipient"], condition=Q(read_at__isnull=True), name="notification_recipient_unread"),
            models.Index(fields=["email"], condition=Q(email="pending"), name="notification_email_pending"),
        ]

    def __str__(self) -> str:
        return f"{self.recipient_id}: {self.text}"

    @property
    def unread(self) -> bool:
        return self.read_at is None


class NotificationSetting(models.Model):
    """A user's choice for one kind of notification, where it differs from the kind's default
    (league.arena.notifications.preferences)."""

    class Delivery(models.TextChoices):
        EMAIL = "email", "on the site and by e-mail"
        SITE = "site", "on the site only"
        OFF = "off", "not at all"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings")
    kind = models.CharField(max_length=24, choices=Notification.Kind.choices)
    delivery = models.CharField(max_length=8, choices=Delivery.choices)

    class Meta:
        constraints = [models.UniqueConstraint("user", "kind", name="notification_setting_once_per_kind")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind}: {self.delivery}"
