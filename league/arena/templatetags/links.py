"""How people, bots, games and times appear on every page: one filter each, so every page links the same way."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from league.arena.play import wording

register = template.Library()


@register.filter
def owner_link(user) -> SafeString:
    """The user's name linked to their profile page."""
    return format_html('<a href="{}">{}</a>', reverse("user", args=[user.get_username()]), user.get_username())


@register.filter
def bot_link(bot) -> SafeString:
    """ "owner/name": the owner linked to their profile, the name to the bot's page (needs bot.owner selected)."""
    return format_html('{}/<a href="{}">{}</a>', owner_link(bot.owner), bot.get_absolute_url(), bot.name)


@register.filter
def replay_url(game_id: int) -> str:
    """The replay viewer's address, /games/<id>/ (its view comes with the replay branch)."""
    return reverse("game-log", args=[game_id]).removesuffix("log.json")


@register.filter
def when(moment: datetime | None) -> SafeString | str:
    """A time in the site's time zone, naming the zone: <time datetime="…">2026-11-26 12:03 UTC</time>."""
    if not isinstance(moment, datetime):
        return "–"
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}">{} {}</time>', local.isoformat(), local.strftime("%Y-%m-%d %H:%M"), local.tzname()
    )


@register.filter
def points(value: float | None) -> str:
    return "–" if value is None else wording.points(value)
