"""Telling a user: `notify` stores a notice (and asks for its e-mail), `send_email` sends one notice's e-mail."""

from __future__ import annotations

import logging
import smtplib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator

from league.arena import queue
from league.arena.models import Notification
from league.arena.notifications import preferences

log = logging.getLogger(__name__)

Kind = Notification.Kind
Email = Notification.Email
TEXT_LENGTH = Notification._meta.get_field("text").max_length
URL_LENGTH = Notification._meta.get_field("url").max_length
# What a failed SMTP delivery may be: the server refused, or could not be reached.
SMTP_ERRORS = (smtplib.SMTPException, OSError)
EMAIL_RETRIES, EMAIL_FIRST_RETRY_SECONDS = 5, 30  # 30 s, 1, 2, 4, 8 min: over within a quarter of an hour
LOST_AFTER = timedelta(hours=1)  # the task's own retries are over well before


def notify(user: Any, kind: str, text: str, url: str = "", key: str = "") -> Notification | None:
    """Tell `user` (a user or a user id) `text`, linking to `url` (a path on the site, e.g. "/bots/7/"), as the
    user's preferences for `kind` (a `Notification.Kind`) say; returns the stored notice, or None when the user turned
    that kind off, their account is inactive (the house bots' owner), or `key` was told them before.

    The notice is written in the caller's transaction, so it is kept only if that commits, and its e-mail (when the
    user wants one, has an address and the server has EMAIL_HOST) is sent once it has. `key` names the event, e.g.
    "version-failed:57": telling the same key twice (a retried task, a re-sent signal) stores one notice.
    Raises ValueError for an unknown kind or a url that is not a path on the site.
    """
    kind = Kind(kind)
    if url and not url.startswith("/"):
        raise ValueError(f"a notification links to a path on the site, starting with '/': {url!r}")
    if len(url) > URL_LENGTH or len(key) > Notification._meta.get_field("key").max_length:
        raise ValueError(f"the url or key is too long: {url[:40]!r}, {key[:40]!r}")
    user_id = user if isinstance(user, int) else user.pk
    account = get_user_model().objects.filter(pk=user_id).values("is_active", "email").first()
    if account is None or not account["is_active"]:
        return None
    delivery = preferences.delivery(user_id, kind)
    if delivery == preferences.Delivery.OFF:
        return None
    wants_email = delivery == preferences.Delivery.EMAIL and account["email"] and preferences.email_configured()
    notice = Notification(
        recipient_id=user_id,
        kind=kind,
        text=Truncator(" ".join(text.split())).chars(TEXT_LENGTH),
        url=url,
        key=key,
        email=Email.PENDING if wants_email else Email.NONE,
        email_asked_at=timezone.now() if wants_email else None,
    )
    try:
        with transaction.atomic():  # a savepoint: a repeated key must not break the caller's transaction
            notice.save()
    except IntegrityError:
        if key and Notification.objects.filter(recipient_id=user_id, key=key).exists():
            return None
        raise
    if wants_email:
        queue.send_notification_email(notice.pk)
    return notice


def absolute(url: str) -> str:
    return settings.SITE_URL.rstrip("/") + (url or "/")


def send_email(notification_id: int) -> bool:
    """Send the notice's e-mail if it is still to be sent; True when this call sent it.

    The row stays locked while the SMTP server answers, so two deliveries of the task never send it twice; when the
    server refuses or cannot be reached, the row stays to send and the error is raised for the task to retry.
    """
    with transaction.atomic():
        notice = (
            Notification.objects.select_for_update()
            .select_related("recipient")
            .filter(pk=notification_id, email=Email.PENDING)
            .first()
        )
        if notice is None:
            return False
        address = notice.recipient.email
        if not address or not preferences.email_configured():
            notice.email = Email.NONE  # the address was removed, or the server's e-mail turned off, since
            notice.save(update_fields=["email"])
            return False
        context = {
            "notice": notice,
            "link": absolute(reverse("notification-open", args=[notice.pk]) if notice.url else notice.url),
            "settings_link": absolute(reverse("notification-settings")),
        }
        context["site_name"] = settings.SITE_NAME
        subject = f"[{settings.SITE_NAME}] " + Truncator(notice.text).chars(120)
        body = render_to_string("arena/notification_email.txt", context)
        send_mail(subject, body, None, [address])
        notice.email, notice.emailed_at = Email.SENT, timezone.now()
        notice.save(update_fields=["email", "emailed_at"])
    log.info("notification %s e-mailed to user %s", notice.pk, notice.recipient_id)
    return True


def try_email(notification_id: int, retries_so_far: int) -> float | None:
    """`send_email`, for the e-mail task: the seconds to wait before trying again when the SMTP server refused or
    could not be reached, or None when there is nothing more to do (sent, not to send, or given up on: after
    EMAIL_RETRIES retries the notice stays on the site and its e-mail is marked as not sent)."""
    try:
        send_email(notification_id)
    except SMTP_ERRORS as error:
        if retries_so_far >= EMAIL_RETRIES:
            log.error("notification %s: e-mail not sent after %d retries: %r", notification_id, retries_so_far, error)
            Notification.objects.filter(pk=notification_id, email=Email.PENDING).update(email=Email.FAILED)
            return None
        wait = EMAIL_FIRST_RETRY_SECONDS * 2**retries_so_far
        log.warning("notification %s: e-mail not sent (%r); trying again in %d s", notification_id, error, wait)
        return wait
    return None


def resend_lost(older_than: timedelta = LOST_AFTER) -> int:
    """Ask again for e-mails still to send long after they were last asked for (their task was lost); how many.

    Each is asked for again at most once per `older_than` (longer than the task's own retries take), so an SMTP
    server that is down for hours is not flooded."""
    if not preferences.email_configured():
        return 0
    now = timezone.now()
    stale = Notification.objects.filter(email=Email.PENDING, email_asked_at__lt=now - older_than)
    asked = 0
    for notification_id in list(stale.values_list("pk", flat=True)[:500]):
        # One conditional UPDATE each: two upkeeps at once ask for each e-mail once.
        if stale.filter(pk=notification_id).update(email_asked_at=now):
            queue.send_notification_email(notification_id)
            asked += 1
    return asked
