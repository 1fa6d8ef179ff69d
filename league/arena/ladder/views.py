"""The ladder page of a competitive game: its leaderboard, a page at a time."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from league.arena.ladder import forfeits, leaderboards
from league.arena.lib import caching
from league.arena.models import (
    FACE_TO_FACE,
    GAME_NAMES,
    Bot,
)
from league.arena.web.decorators import with_bot
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


@require_POST
@login_required
@with_bot(owner_only=True)
def resume_bot(request: HttpRequest, bot: Bot) -> HttpResponse:
    """The owner's Resume button for a bot paused for forfeits."""
    if not forfeits.resume(bot):
        messages.error(request, f"{bot.name} was not paused.")
    elif not bot.is_on_ladder:
        messages.success(request, f"{bot.name} is no longer paused, but something else keeps it off the ladder.")
    else:
        messages.success(request, f"{bot.name} is back on the ladder; its forfeits are counted afresh.")
    return redirect(bot)
