"""The scrim pages: the request form and the owner's recent requests on the bot page, and a request's own page.

A request, its state and its summary are shown to its owner and staff only (a 404 for anyone else); the games it
played are public like every other game.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from league.arena.models import COMPETITIVE_GAMES, Bot, MatchRequest
from league.arena.scrims import requests as scrims
from league.arena.web.decorators import sees_private

RECENT_SHOWN = 10


class OpponentChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Bot) -> str:
        return obj.full_name


class ScrimForm(forms.Form):
    opponent = OpponentChoice(queryset=Bot.objects.none(), empty_label="Choose a bot")
    games = forms.IntegerField(
        min_value=1,
        max_value=scrims.MAX_GAMES,
        initial=scrims.CHUNK_GAMES,
        help_text=f"1 to {scrims.MAX_GAMES}; unrated, played when the league's workers are free.",
    )

    def __init__(self, *args: Any, bot: Bot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["opponent"].queryset = scrims.opponents(bot)


def bot_page_part(request: HttpRequest, bot: Bot, form: ScrimForm | None = None) -> dict:
    """What the owner's view of the bot page shows about scrims: the form, the quota, the newest requests."""
    if bot.owner_id != request.user.pk or bot.game not in COMPETITIVE_GAMES:
        return {}
    recent = list(MatchRequest.objects.filter(bot=bot).select_related("bot__owner", "opponent__owner")[:RECENT_SHOWN])
    scrims.attach_progress(recent)
    return {
        "scrim_form": form or ScrimForm(bot=bot),
        "scrims": recent,
        "scrim_games_left": scrims.games_left(request.user.pk),
        "scrim_games_per_day": settings.ARENA_SCRIM_GAMES_PER_DAY,
        "bot_has_active_version": bot.active_version_id is not None,
    }


def _scrim_context(request: HttpRequest, scrim_id: int) -> dict:
    """The request with its progress, games and matches; a 404 for anyone but its owner and staff."""
    shown = MatchRequest.objects.select_related("bot__owner", "opponent__owner", "version", "opponent_version")
    scrim = get_object_or_404(shown, pk=scrim_id)
    if not sees_private(request.user, scrim.requester_id):
        raise Http404("no such scrim")
    scrims.attach_progress([scrim])
    return {
        "scrim": scrim,
        "games": scrims.games_of(scrim),
        "matches": scrim.matches.order_by("pk").only("pk", "status", "games", "games_done"),
    }


def scrim_page(request: HttpRequest, scrim_id: int) -> HttpResponse:
    return render(request, "arena/scrim.html", _scrim_context(request, scrim_id))


def scrim_status(request: HttpRequest, scrim_id: int) -> HttpResponse:
    """The request page's state, result, games and matches alone, polled by the page until it is finished."""
    return render(request, "arena/_scrim_status.html", _scrim_context(request, scrim_id))
