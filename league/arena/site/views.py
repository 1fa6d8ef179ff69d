"""The site's own pages: home (the Face to Face ladder's top, the co-op games' current seasons, tournaments),
the documentation and starter bots."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

from league.arena.coop import challenges
from league.arena.coop import leaderboards as coop_leaderboards
from league.arena.ladder import leaderboards
from league.arena.lib import caching
from league.arena.models import (
    COOP_GAMES,
    FACE_TO_FACE,
    GAME_CHOICES,
    GAME_NAMES,
    Tournament,
)
from league.arena.site import docs, kit

HOME_TOP = 5
HOME_TOURNAMENTS = 5


def home(request: HttpRequest) -> HttpResponse:
    top = caching.fragment(
        "home-top",
        caching.leaderboard_scope(FACE_TO_FACE),
        lambda: render_to_string(
            "arena/_top.html", {"rows": leaderboards.top(FACE_TO_FACE, HOME_TOP), "game_choices": GAME_CHOICES}
        ),
    )
    coop = [
        caching.fragment(f"home-coop:{game}", caching.leaderboard_scope(game), lambda game=game: _coop_top(game))
        for game in COOP_GAMES
    ]
    started = Tournament.objects.exclude(status=Tournament.Status.DRAFT)
    upcoming = Tournament.objects.filter(status=Tournament.Status.DRAFT, scheduled_at__isnull=False)
    return render(
        request,
        "arena/home.html",
        {
            "top": top,
            "coop": coop,
            "tournaments": started[:HOME_TOURNAMENTS],
            "upcoming": upcoming.order_by("scheduled_at")[:HOME_TOURNAMENTS],
        },
    )


def _coop_top(game: str) -> str:
    """A co-op game's current season on the home page: the top of its smallest team size's board."""
    season = challenges.current_season(game)
    board = coop_leaderboards.leaderboard_page(season, season.team_sizes[0], 1, per_page=HOME_TOP) if season else None
    return render_to_string(
        "arena/_coop_top.html", {"game": game, "name": GAME_NAMES[game], "season": season, "board": board}
    )


def docs_index(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/docs_index.html", {"pages": docs.PAGES, "starters": docs.starters()})


def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    page = docs.BY_SLUG.get(slug)
    html = docs.page_html(page) if page else None
    if html is None:
        raise Http404(f"no documentation page called {slug}")
    return render(request, "arena/doc.html", {"page": page, "html": html, "pages": docs.PAGES})


def starter(request: HttpRequest, name: str) -> HttpResponse:
    """A starter bot's source as a download."""
    source = docs.starter_source(name)
    if source is None:
        raise Http404(f"no starter bot called {name}")
    response = HttpResponse(source, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def kit_page(request: HttpRequest) -> HttpResponse:
    """The author's kit: its download and how to install it, play a starter and replay a downloaded log."""
    wheel = kit.wheel()
    download = request.build_absolute_uri(reverse("kit-wheel", args=[wheel.name]))
    return render(request, "arena/kit.html", {"wheel": wheel, "download": download, "pages": docs.PAGES})


def kit_wheel(request: HttpRequest, name: str) -> FileResponse:
    """The kit's wheel; only this server's own version is served."""
    wheel = kit.wheel()
    if name != wheel.name:
        raise Http404(f"this server serves {wheel.name}, not {name}")
    response = FileResponse(open(wheel.path, "rb"), as_attachment=True, filename=wheel.name)
    response["Content-Type"] = "application/zip"
    return response
