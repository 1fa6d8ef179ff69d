"""Request plumbing shared by views: loading a bot, checking who may act on it, and rate limits."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404

from league.arena.lib import throttles
from league.arena.models import Bot

View = Callable[..., HttpResponse]


def sees_private(user: Any, owner_id: int | None) -> bool:
    """True for the owner of the bot and for staff: they see its versions' stderr, failures and source."""
    return bool(user and user.is_authenticated and (user.is_staff or user.pk == owner_id))


def with_bot(owner_only: bool = False) -> Callable[[View], View]:
    """Replace the view's `bot_id` argument with the Bot; 404 if missing, 403 if owner_only and not yours."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, bot_id: int, *args: Any, **kwargs: Any) -> HttpResponse:
            bot = get_object_or_404(Bot.objects.select_related("owner"), pk=bot_id)
            if owner_only and bot.owner_id != request.user.pk:
                return HttpResponseForbidden("Only the bot's owner can do this.")
            return view(request, bot, *args, **kwargs)

        return wrapper

    return decorate


def throttled(
    scope: str,
    limit_setting: str,
    by: Callable[[HttpRequest], str | None],
    what: str,
    count_refused: bool = True,
) -> Callable[[View], View]:
    """Allow settings.<limit_setting> POSTs per hour per `by(request)` (a user id, an address); more answer 429.

    The 429 page says `what` was refused and when to try again. The limit is read on each request. Without
    `count_refused`, a POST the view refuses (an answer of 400 or more: an upload that does not compile, say) is
    not counted.
    """

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method == "POST":
                limit = getattr(settings, limit_setting)
                ident = by(request) or "unknown"
                retry_after = throttles.hit(scope, ident, limit, period=3600)
                if retry_after is not None:
                    return throttles.too_many(request, what, retry_after)
                response = view(request, *args, **kwargs)
                if not count_refused and response.status_code >= 400:
                    throttles.give_back(scope, ident, period=3600)
                return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def per_user(request: HttpRequest) -> str:
    return str(request.user.pk)
