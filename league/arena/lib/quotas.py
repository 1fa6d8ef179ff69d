"""Per-user daily quotas over a sliding 24 hours (analyses asked, scrim games asked, version-test games played).

Each quota counts one user's records stamped `created` within the last `WINDOW`; asking past the limit is refused
with the moment the oldest of those records leaves the window, when more is allowed again (the API's Retry-After):

    used = quotas.used(GameAnalysis.objects.filter(requested_by_id=user_id), now)
    quotas.check(limit, used, 1, GameAnalysis.objects.filter(requested_by_id=user_id), now, refuse)

`refuse(retry_at)` builds the caller's own exception (a subclass of `OverQuota`), in its own words.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet, Sum

WINDOW = timedelta(hours=24)


class OverQuota(Exception):
    """A request past a daily quota; `retry_at` is when the next may be made."""

    def __init__(self, message: str, retry_at: datetime) -> None:
        super().__init__(message)
        self.retry_at = retry_at

    def retry_after(self, now: datetime) -> int:
        """Whole seconds from `now` until `retry_at`, at least 1 (a Retry-After header's value)."""
        return max(1, int((self.retry_at - now).total_seconds()))


def in_window(records: QuerySet[Any], now: datetime) -> QuerySet[Any]:
    """The `records` created within the last WINDOW before `now`."""
    return records.filter(created__gt=now - WINDOW)


def used(records: QuerySet[Any], now: datetime, amount: str | None = None) -> int:
    """How much of a quota `records` took within the window: how many there are, or the sum of their `amount`."""
    recent = in_window(records, now)
    if amount is None:
        return recent.count()
    return recent.aggregate(total=Sum(amount))["total"] or 0


def next_free(records: QuerySet[Any], now: datetime) -> datetime:
    """When the oldest of `records` within the window leaves it (`now` + WINDOW if none is within it)."""
    oldest = in_window(records, now).order_by("created").values_list("created", flat=True).first()
    return (oldest or now) + WINDOW


def check(
    limit: int,
    used_now: int,
    wanted: int,
    records: QuerySet[Any],
    now: datetime,
    refuse: Callable[[datetime], OverQuota],
) -> None:
    """Raise `refuse(retry_at)` unless `wanted` more fit within `limit` with `used_now` already used; `records` are
    the uses the window counts, whose oldest sets `retry_at`."""
    if used_now + wanted <= limit:
        return
    raise refuse(next_free(records, now))
