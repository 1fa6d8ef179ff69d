"""Rate limits kept on the shared "throttles" cache, and the one 429 page that says when to try again.

Counts are per fixed window (an hour for uploads and sign-ups), so the page can name the moment the window ends.
Failed logins are counted by django-axes (per account and per address); its lockout renders the same page.
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def client_address(request: HttpRequest) -> str | None:
    """The client's address: behind the documented TLS proxy, the one that proxy put last in X-Forwarded-For.

    None when unknown (a test client's force_login); django-axes stores it in an IP address column.
    """
    if settings.BEHIND_TLS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR") or None


def hit(scope: str, ident: str, limit: int, period: int) -> int | None:
    """Count one attempt of `ident` at `scope`; the seconds until it may try again when past `limit`, else None."""
    now = time.time()
    window = int(now // period)
    key = f"{scope}:{ident}:{window}"
    cache = caches["throttles"]
    cache.add(key, 0, timeout=period + 60)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=period + 60)
        count = 1
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * period - now))


def give_back(scope: str, ident: str, period: int) -> None:
    """Uncount one attempt of `ident` at `scope` in the current window (one that was refused for what it sent)."""
    key = f"{scope}:{ident}:{int(time.time() // period)}"
    try:
        caches["throttles"].decr(key)
    except ValueError:  # the window ended meanwhile: nothing of it is left to give back
        pass


def too_many(request: HttpRequest, what: str, retry_after: int) -> HttpResponse:
    """429 with a Retry-After header and a page that says what was refused and when to try again."""
    at = datetime.fromtimestamp(time.time() + retry_after, tz=UTC)
    minutes = math.ceil(retry_after / 60)
    context = {
        "what": what,
        "wait": f"{minutes} minute{'s' if minutes != 1 else ''}",
        "at": at.strftime("%H:%M UTC"),
    }
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(retry_after)
    return response


def login_locked_out(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    """django-axes' lockout (AXES_LOCKOUT_CALLABLE): the 429 page, retry after the cool-off."""
    cool_off = int(settings.AXES_COOLOFF_TIME.total_seconds())
    return too_many(request, "Too many failed logins from your address.", cool_off)
