"""A user's notices: how many are unread, the list, and marking them read (only ever the user's own)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from league.arena.models import Notification


def unread_count(user_id: int) -> int:
    """The navigation's number: one count over the partial index of unread notices."""
    return Notification.objects.filter(recipient_id=user_id, read_at__isnull=True).count()


def of(user_id: int, unread_only: bool = False) -> QuerySet[Notification]:
    """The user's notices, newest first."""
    notices = Notification.objects.filter(recipient_id=user_id).order_by("-created", "-pk")
    return notices.filter(read_at__isnull=True) if unread_only else notices


def mark_read(user_id: int, ids: list[int] | None = None) -> int:
    """Mark the user's unread notices read: those of `ids`, or all when None; how many were unread."""
    unread = Notification.objects.filter(recipient_id=user_id, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    return unread.update(read_at=timezone.now())


def mark_unread(user_id: int, ids: list[int]) -> int:
    return Notification.objects.filter(recipient_id=user_id, pk__in=ids).update(read_at=None)


def open_notice(user_id: int, notification_id: int) -> Notification | None:
    """The user's notice, marked read (None when it is not theirs or does not exist)."""
    notice = Notification.objects.filter(recipient_id=user_id, pk=notification_id).first()
    if notice is not None and notice.read_at is None:
        mark_read(user_id, [notice.pk])
    return notice
