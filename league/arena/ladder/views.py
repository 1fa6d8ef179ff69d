"""The ladder page of a competitive game: its leaderboard, a page at a time."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string

from league.arena.ladder import leaderboards
from league.arena.lib import caching
from league.arena.models import (
    FACE_TO_FACE,
    GAME_NAMES,
)
from league.arena.web.pagination import page_number

LADDER_PER_PAGE = 50


def _ladder_table(game: str, number: int) -> str:
    page = leaderboards.leaderboard_page(game, number, per_page=LADDER_PER_PAGE)
    if page.number != number:
        raise Http404(f"the {GAME_NAMES[game]} ladder has {page.num_pages} pages")
    context = {
        "page": page,
        "game_name": GAME_NAMES[game],
        "provisional_games": settings.ARENA_LADDER_PROVISIONAL_GAMES,
        "provisional_margin": settings.ARENA_LADDER_PROVISIONAL_MARGIN,
    }
    return render_to_string("arena/_ladder_table.html", context)


def leaderboard(request: HttpRequest, game: str = FACE_TO_FACE) -> HttpResponse:
    if game not in GAME_NAMES:
        raise Http404(f"no game called {game}")
    number = page_number(request)
    table = caching.fragment(
        f"ladder:{game}:{number}", caching.leaderboard_scope(game), lambda: _ladder_table(game, number)
    )
    return render(
        request,
        "arena/leaderboard.html",
        {"game": game, "game_name": GAME_NAMES[game], "number": number, "table": table},
    )
