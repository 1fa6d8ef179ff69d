"""Pages of the co-op challenge ladders: leaderboards per season and team size, a deal's results side by side,
and a season's published seed list (page, plain text and JSON)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string

from league.arena.coop import challenges
from league.arena.coop import leaderboards as coop_leaderboards
from league.arena.ladder import views as ladder_views
from league.arena.lib import caching
from league.arena.models import COOP_GAMES, GAME_CHOICES, GAME_NAMES, Season
from league.arena.web.pagination import page_number

LADDER_PER_PAGE = 50


def _board(season: Season, players: int, number: int) -> str:
    page = coop_leaderboards.leaderboard_page(season, players, number, LADDER_PER_PAGE)
    if page.number != number:
        raise Http404(f"this ladder has {page.num_pages} pages")
    return render_to_string(
        "arena/_coop_ladder_table.html",
        {"page": page, "season": season, "players": players, "game_name": GAME_NAMES[season.game]},
    )


def leaderboard(request: HttpRequest, season: Season | None, players: int, number: int, game: str) -> HttpResponse:
    """The co-op board of `season` (None: the game has no season yet) for teams of `players`."""
    table = ""
    if season is None and number > 1:
        raise Http404(f"the {GAME_NAMES[game]} ladder has 1 page")
    if season is not None:
        if players not in season.team_sizes:
            raise Http404(f"{season} has no ladder of {players}-player teams")
        table = caching.fragment(
            f"coop-ladder:{season.pk}:{players}:{number}",
            caching.leaderboard_scope(season.game),
            lambda: _board(season, players, number),
        )
    seasons = Season.objects.filter(game=game).order_by("-number")[:20]
    return render(
        request,
        "arena/coop_leaderboard.html",
        {
            "game": game,
            "game_name": GAME_NAMES[game],
            "game_choices": GAME_CHOICES,
            "season": season,
            "seasons": seasons,
            "players": players,
            "number": number,
            "table": table,
        },
    )


def ladder(request: HttpRequest, game: str) -> HttpResponse:
    """/ladder/<game>/: a co-op game's current season, solo; Face to Face's Elo ladder otherwise."""
    if game not in COOP_GAMES:
        return ladder_views.leaderboard(request, game)
    return leaderboard(request, challenges.current_season(game), 1, page_number(request), game)


def season_ladder(request: HttpRequest, season_id: int, players: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    return leaderboard(request, season, players, page_number(request), season.game)


def season_page(request: HttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    return render(request, "arena/coop_season.html", {"season": season, "game_name": GAME_NAMES[season.game]})


def season_seeds_text(request: HttpRequest, season_id: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    response = HttpResponse("".join(f"{seed}\n" for seed in season.seeds()), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{season.seed}.txt"'
    return response


def season_seeds_json(request: HttpRequest, season_id: int) -> JsonResponse:
    season = get_object_or_404(Season, pk=season_id)
    return JsonResponse(
        {
            "game": season.game,
            "season": season.number,
            "seed": season.seed,
            "deals": season.deals,
            "seed_rule": "deal d is dealt from the seed '<seed>:<d>'",
            "team_sizes": season.team_sizes,
            "started_at": season.started_at.isoformat(),
            "seeds": season.seeds(),
        }
    )


def deal_page(request: HttpRequest, season_id: int, deal: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=season_id)
    if deal >= season.deals:
        raise Http404(f"{season} has deals 0 to {season.deals - 1}")
    rows = coop_leaderboards.deal_results(season, deal)
    teams = {}
    for row in rows:
        teams.setdefault(row.players, []).append(row)
    return render(
        request,
        "arena/coop_deal.html",
        {
            "season": season,
            "game_name": GAME_NAMES[season.game],
            "deal": deal,
            "seed": season.deal_seed(deal),
            "teams": sorted(teams.items()),
            "previous": deal - 1 if deal > 0 else None,
            "next": deal + 1 if deal + 1 < season.deals else None,
        },
    )
