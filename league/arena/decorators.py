"""Request plumbing shared by views: loading a bot and checking who may act on it."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404

from league.arena.models import Bot

View = Callable[..., HttpResponse]


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
