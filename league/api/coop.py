"""The co-op challenge ladders in the API: seasons, their deals (seeds, and each deal's results side by side with
links to the games) and the versions' results and leaderboards per team size.

Everything here is public, as on the site. Each list is paginated like the rest of the API and runs a constant
number of queries: figures come from the season's aggregates (`league.arena.coop.results`), never from the games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import django_filters
from django.core.paginator import Paginator
from django.db.models import F, OuterRef, QuerySet, Subquery
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from league.api import coop_docs, coop_serializers
from league.api.pagination import Pages
from league.api.views import json_ready
from league.arena.coop import leaderboards as coop_leaderboards
from league.arena.coop.results import Figures
from league.arena.lib import caching
from league.arena.models import TEAM_SIZES, DealResult, Season, SeasonRating, SeasonStanding

TEAM_SIZE_CHOICES = [(size, str(size)) for size in TEAM_SIZES]


class SeasonFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=coop_serializers.COOP_GAME_CHOICES)
    current = django_filters.BooleanFilter(help_text="true: each game's current season only.")

    class Meta:
        model = Season
        fields = ["game", "current"]


class SeasonResultFilter(django_filters.FilterSet):
    players = django_filters.TypedChoiceFilter(choices=TEAM_SIZE_CHOICES, coerce=int, help_text="One team size.")
    bot = django_filters.NumberFilter(field_name="version__bot_id", help_text="Results of this bot's versions.")
    version = django_filters.NumberFilter(field_name="version_id", help_text="Results of this version.")

    class Meta:
        model = SeasonStanding
        fields = ["players", "bot", "version"]


class DealResultFilter(django_filters.FilterSet):
    players = django_filters.TypedChoiceFilter(choices=TEAM_SIZE_CHOICES, coerce=int, help_text="One team size.")

    class Meta:
        model = DealResult
        fields = ["players"]


def filtered(filterset_class: type[django_filters.FilterSet], request: Request, rows: QuerySet) -> QuerySet:
    """`rows` through a filter set, as DRF's filter backend does it (an action's rows are not its view's model)."""
    filterset = filterset_class(request.query_params, queryset=rows, request=request)
    if not filterset.is_valid():
        raise ValidationError(filterset.errors)
    return filterset.qs


class Deals(Sequence):
    """A season's deals as a sequence the paginator slices: rows are made for the page only (up to 100,000)."""

    def __init__(self, season: Season) -> None:
        self.season = season

    def __len__(self) -> int:
        return self.season.deals

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[deal] for deal in range(*index.indices(len(self)))]
        if not 0 <= index < len(self):
            raise IndexError(index)
        return {
            "deal": index,
            "seed": self.season.deal_seed(index),
            "url": f"/api/seasons/{self.season.pk}/deals/{index}/",
        }


def figures_of(figures: Figures | None) -> dict:
    """The figures a result row shows (all empty when nothing was played)."""
    figures = figures or Figures(0, 0, 0)
    low, high = figures.win_interval
    return {
        "deals": figures.deals,
        "wins": figures.wins,
        "win_rate": figures.win_rate,
        "win_interval": {"low": low, "high": high},
        "mean_cards_left": figures.mean,
        "median_cards_left": figures.median,
        "histogram": figures.histogram,
    }


def rating_of(row: Any, prefix: str) -> dict | None:
    """A rating annotated on `row` as `<prefix>elo`, `<prefix>low`, ... (None when the version is unrated)."""
    if getattr(row, f"{prefix}elo") is None:
        return None
    names = ("elo", "low", "high", "comparisons", "wins", "losses", "draws")
    return {name: getattr(row, f"{prefix}{name}") for name in names}


def standings_with_ratings(season: Season) -> QuerySet[SeasonStanding]:
    """The season's standings with each version's rating on the same ladder, best rated first per team size."""
    rating = SeasonRating.objects.filter(season=season, players=OuterRef("players"), version=OuterRef("version"))
    columns = {
        f"r_{name}": Subquery(rating.values(name)[:1])
        for name in ("elo", "low", "high", "comparisons", "wins", "losses", "draws")
    }
    return (
        SeasonStanding.objects.filter(season=season)
        .select_related("version__bot__owner")
        .annotate(**columns)
        .order_by("players", F("r_elo").desc(nulls_last=True), "-deals", "version_id")
    )


def result_row(standing: SeasonStanding) -> dict:
    bot = standing.version.bot
    return {
        "players": standing.players,
        "bot": bot,
        "version": standing.version,
        "on_ladder": bot.active_version_id == standing.version_id,
        **figures_of(Figures(standing.deals, standing.wins, standing.cards_left, standing.histogram)),
        "rating": rating_of(standing, "r_"),
    }


def leaderboard_row(bot: Any, rank: int | None, players: int) -> dict:
    figures = Figures(bot.s_deals, bot.s_wins, bot.s_cards, bot.s_histogram) if bot.s_deals else None
    return {
        "rank": rank,
        "players": players,
        "bot": bot,
        "version": bot.active_version,
        "on_ladder": True,
        **figures_of(figures),
        "rating": rating_of(bot, "r_"),
    }


def deal_row(result: DealResult) -> dict:
    bot = result.version.bot
    return {
        "players": result.players,
        "bot": bot,
        "version": result.version,
        "on_ladder": bot.active_version_id == result.version_id,
        "cards_left": result.cards_left,
        "game": result.game_id,
        "game_url": f"/api/games/{result.game_id}/",
        "log_url": f"/api/games/{result.game_id}/log",
        "replay_url": f"/games/{result.game_id}/",
    }


def team_size(request: Request, season: Season) -> int:
    """The `players` query parameter (default 1), one of the season's team sizes."""
    raw = request.query_params.get("players", "1")
    if not raw.isdigit() or int(raw) not in TEAM_SIZES:
        raise ValidationError({"players": [f"a team size from 1 to 5, not {raw[:20]!r}"]})
    if int(raw) not in season.team_sizes:
        raise NotFound(f"{season} has no ladder of {raw}-player teams (team sizes: {season.team_sizes})")
    return int(raw)


@coop_docs.seasons
class SeasonViewSet(viewsets.ReadOnlyModelViewSet):
    """The co-op games' challenge seasons, newest first, with their deals, results and leaderboards."""

    queryset = Season.objects.order_by("-started_at", "-pk")
    serializer_class = coop_serializers.SeasonSerializer
    filterset_class = SeasonFilter

    def season(self, pk: str) -> Season:
        """The season of a detail route (its actions filter other models, so not through `get_object`)."""
        return get_object_or_404(Season, pk=pk)

    @action(detail=True, methods=["get"], filterset_class=None)
    def deals(self, request: Request, pk: str) -> Response:
        """The season's deals by number, each with its seed."""
        page = self.paginate_queryset(Deals(self.season(pk)))
        return self.get_paginated_response(coop_serializers.DealSerializer(page, many=True).data)

    @action(detail=True, methods=["get"], url_path=r"deals/(?P<deal>[0-9]+)", filterset_class=None)
    def deal(self, request: Request, pk: str, deal: str) -> Response:
        """Every version's result on one deal, best first within each team size, with links to the games."""
        season = self.season(pk)
        number = int(deal)
        if number >= season.deals:
            raise NotFound(f"{season} has deals 0 to {season.deals - 1}")
        results = (
            # The team sizes let the (season, players, deal) index find the deal directly (1.7 ms, not 10 ms).
            DealResult.objects.filter(season=season, players__in=season.team_sizes, deal=number)
            .select_related("version__bot__owner")
            .order_by(
                "players", "cards_left", "version__bot__owner__username", "version__bot__name", "-version__number"
            )
        )
        page = self.paginate_queryset(filtered(DealResultFilter, request, results))
        body = self.get_paginated_response(coop_serializers.DealResultSerializer(map(deal_row, page), many=True).data)
        body.data = {"season": season.pk, "deal": number, "seed": season.deal_seed(number), **body.data}
        return body

    @action(detail=True, methods=["get"], filterset_class=None)
    def results(self, request: Request, pk: str) -> Response:
        """Every version's results on the season, per team size: best rated first, unrated last."""
        page = self.paginate_queryset(filtered(SeasonResultFilter, request, standings_with_ratings(self.season(pk))))
        return self.get_paginated_response(
            coop_serializers.SeasonResultSerializer(map(result_row, page), many=True).data
        )

    @action(detail=True, methods=["get"], filterset_class=None)
    def leaderboard(self, request: Request, pk: str) -> Response:
        """The site's co-op leaderboard: each ladder bot's version by Elo (rank kept across pages), unrated last.

        Pages are kept in the page cache until the game's next refit, as the site's board is."""
        season = self.season(pk)
        players = team_size(request, season)
        pages = Pages()
        per_page = pages.get_page_size(request)
        raw = request.query_params.get(pages.page_query_param, "1")
        if not raw.isdigit() or int(raw) < 1:
            raise NotFound(f"{raw[:20]!r} is not a page number")
        number = int(raw)
        page = caching.fragment(
            f"api-coop-ladder:{season.pk}:{players}:{number}:{per_page}",
            caching.leaderboard_scope(season.game),
            lambda: leaderboard_page_data(season, players, number, per_page),
        )
        if page["number"] != number:
            raise NotFound(f"this leaderboard has {page['num_pages']} pages")
        url = request.build_absolute_uri()
        previous = None
        if number > 1:
            previous = replace_query_param(url, "page", number - 1) if number > 2 else remove_query_param(url, "page")
        following = replace_query_param(url, "page", number + 1) if number < page["num_pages"] else None
        return Response({"count": page["count"], "next": following, "previous": previous, "results": page["rows"]})


def leaderboard_page_data(season: Season, players: int, number: int, per_page: int) -> dict:
    """One page of a season's board as plain data (`Paginator.get_page`: out of range gives the last page)."""
    ranked = coop_leaderboards.ranked(season, players).annotate(
        r_wins=F("rated__wins"), r_losses=F("rated__losses"), r_draws=F("rated__draws")
    )
    current = Paginator(ranked, per_page).get_page(number)
    first = current.start_index()
    rows = [
        leaderboard_row(bot, first + index if bot.r_elo is not None else None, players)
        for index, bot in enumerate(current.object_list)
    ]
    return {
        "number": current.number,
        "num_pages": current.paginator.num_pages,
        "count": current.paginator.count,
        "rows": json_ready(coop_serializers.LeaderboardRowSerializer(rows, many=True).data),
    }
