"""The daily quota helper the analyses, scrims and version tests share: what the sliding 24 hours count, and when a
refused request may be made again (the API's Retry-After)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from league.arena.lib import quotas
from league.arena.models import Notification


class Refused(quotas.OverQuota):
    pass


def _record(user, now, hours_ago):
    return Notification.objects.create(
        recipient=user, kind=Notification.Kind.SCRIM_FINISHED, text="x", created=now - timedelta(hours=hours_ago)
    )


def test_only_the_last_24_hours_count_and_the_oldest_of_them_says_when_more_is_free(alice, bob):
    now = timezone.now()
    for hours_ago in (30, 20, 3):
        _record(alice, now, hours_ago)
    _record(bob, now, 1)
    mine = Notification.objects.filter(recipient=alice)
    assert quotas.used(mine, now) == 2
    assert quotas.next_free(mine, now) == now - timedelta(hours=20) + quotas.WINDOW
    assert quotas.next_free(Notification.objects.filter(recipient_id=-1), now) == now + quotas.WINDOW


def test_check_refuses_only_what_does_not_fit_and_builds_the_callers_own_error(alice):
    now = timezone.now()
    _record(alice, now, 20)
    mine = Notification.objects.filter(recipient=alice)
    quotas.check(3, 2, 1, mine, now, lambda at: Refused("no", at))
    with pytest.raises(Refused, match="past 3") as refused:
        quotas.check(3, 2, 2, mine, now, lambda at: Refused(f"past 3 until {at}", at))
    assert refused.value.retry_at == now + timedelta(hours=4)
    assert refused.value.retry_after(now) == 4 * 3600
    assert refused.value.retry_after(now + timedelta(hours=5)) == 1, "Retry-After is never below a second"
