"""The replay viewer's page: a game's log, verified by the engine, shown turn by turn and play by play."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from league.arena.models import GAME_NAMES, Game, GameSeat, LogTampered
from league.arena.play.replay_data import SeatLabel, viewer_data
from league.arena.views import _require_visible


def replay_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game.objects.select_related("match__tournament"), pk=game_id)
    _require_visible(request, game.match)
    context = {"game": game, "match": game.match, "game_name": GAME_NAMES.get(game.game, game.game)}
    try:
        log = game.verified_log()
    except LogTampered as error:
        return render(request, "arena/replay_error.html", {**context, "error": str(error)}, status=409)
    context["data"] = viewer_data(log, _seat_labels(game))
    return render(request, "arena/replay.html", context)


def _seat_labels(game: Game) -> list[SeatLabel]:
    """Each seat's bot as the database knows it (the log carries only the names it was played under)."""
    rows = GameSeat.objects.filter(game=game).select_related("version__bot__owner").order_by("seat")
    return [
        {"name": row.version.bot.full_name, "version": row.version.label, "url": row.version.bot.get_absolute_url()}
        for row in rows
    ]
