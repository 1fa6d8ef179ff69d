"""The API's endpoints. Each list runs a constant number of queries and is paginated (`Pages`)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, OuterRef, Prefetch, QuerySet, Subquery
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

import games
from league.api import docs, serializers
from league.api.filters import BotFilter, MatchFilter, TournamentFilter
from league.api.pagination import Pages
from league.api.permissions import IsBotOwnerOrReadOnly, visible_matches
from league.api.ratings import rating_points
from league.api.throttles import UploadThrottle
from league.arena.coop import challenges
from league.arena.ladder import leaderboards
from league.arena.lib import caching
from league.arena.models import (
    COMPETITIVE_GAMES,
    GAME_NAMES,
    Bot,
    BotVersion,
    Game,
    GameSeat,
    LogTampered,
    Match,
    MatchEntry,
    Tournament,
)
from league.arena.tournaments import standings
from league.arena.uploads import changes as bot_changes
from league.arena.uploads import versions
from league.arena.uploads.forms import NewBotForm, NewVersionForm
from league.arena.uploads.intake import NameTaken, UploadRejected, add_bot, add_version
from league.arena.web.decorators import sees_private

USER_BOTS_SHOWN = 100
MATCH_GAMES_SHOWN = 100


def form_error(form: Any) -> ValidationError:
    """The form's errors as the API's 400 (`__all__` becomes non_field_errors)."""
    errors = {
        ("non_field_errors" if name == "__all__" else name): [error["message"] for error in found]
        for name, found in form.errors.get_json_data().items()
    }
    return ValidationError(errors)


def versions_with_details() -> QuerySet[BotVersion]:
    """Versions with what VersionSerializer shows: bot (for the owner check), rating, validation match id."""
    validation = MatchEntry.objects.filter(version=OuterRef("pk"), index=0, match__kind=Match.Kind.VALIDATION)
    return BotVersion.objects.select_related("bot", "rating").annotate(
        validation_match_id=Subquery(validation.order_by("-match_id").values("match_id")[:1])
    )


# The columns match entries show (with their bot and owner): a page of matches loads hundreds of these rows.
ENTRY_COLUMNS = (
    *("match_id", "index", "version_id", "stderr_tail", "games", "wins", "losses", "draws", "points"),
    *("version__number", "version__sha256", "version__status", "version__bot_id"),
    *("version__bot__name", "version__bot__game", "version__bot__owner_id", "version__bot__owner__username"),
)


def entries_with_bots() -> Prefetch:
    entries = MatchEntry.objects.select_related("version__bot__owner").only(*ENTRY_COLUMNS).order_by("index")
    return Prefetch("entries", queryset=entries)


@docs.users
class UserViewSet(viewsets.ReadOnlyModelViewSet):
    """Public profiles: username, when they joined, their bots."""

    queryset = get_user_model().objects.order_by("username")
    serializer_class = serializers.UserSerializer
    lookup_field = "username"
    lookup_value_regex = r"[\w.@+-]+"

    def get_serializer_class(self) -> type:
        return serializers.UserProfileSerializer if self.action == "retrieve" else serializers.UserSerializer

    def get_queryset(self) -> QuerySet:
        users = super().get_queryset()
        if self.action == "retrieve":
            users = users.annotate(bot_count=Count("bots"))
        return users

    def get_object(self) -> Any:
        user = super().get_object()
        user.shown_bots = list(
            Bot.objects.filter(owner=user)
            .select_related("owner", "active_version__rating")
            .order_by("name", "pk")[:USER_BOTS_SHOWN]
        )
        return user


@docs.bots
class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.UpdateModelMixin, viewsets.GenericViewSet):
    """Bots: anyone lists and reads them; signed-in users upload new ones; owners rename and describe theirs."""

    queryset = Bot.objects.select_related("owner", "active_version__rating").order_by("pk")
    serializer_class = serializers.BotSerializer
    filterset_class = BotFilter
    permission_classes = [IsAuthenticatedOrReadOnly, IsBotOwnerOrReadOnly]
    parser_classes = [JSONParser, MultiPartParser, FormParser]
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_serializer_class(self) -> type:
        if self.action == "partial_update":
            return serializers.BotUpdateSerializer
        return serializers.BotDetailSerializer if self.action == "retrieve" else serializers.BotSerializer

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        bot = self.get_object()
        bot.ladder_rank = ladder_rank(bot)
        return Response(self.get_serializer(bot).data)

    upload_throttle: UploadThrottle | None = None

    def get_throttles(self) -> list:
        throttles = super().get_throttles()
        if self.request.method == "POST" and self.action in ("create", "versions"):
            self.upload_throttle = UploadThrottle()
            throttles.append(self.upload_throttle)
        return throttles

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        refused = response.status_code >= 400 and response.status_code != status.HTTP_429_TOO_MANY_REQUESTS
        if self.upload_throttle is not None and refused:
            self.upload_throttle.give_back()  # refused for what it sent: it started no validation
        return super().finalize_response(request, response, *args, **kwargs)

    def create(self, request: Request) -> Response:
        """A new bot and its version 1 from a multipart upload, checked exactly as the site's form checks it."""
        form = NewBotForm(request.data, request.FILES, owner=request.user)
        if not form.is_valid():
            raise form_error(form)
        data = form.cleaned_data
        try:
            with transaction.atomic():
                bot = add_bot(request.user, data["name"], data["game"], data["description"], data["file"])
        except NameTaken as error:  # a double submit, or the same name created at the same moment
            raise ValidationError({"name": [str(error)]}) from None
        except UploadRejected as error:
            raise ValidationError({"file": [str(error)]}) from None
        version = bot.versions.get(number=1)
        bot = self.get_queryset().get(pk=bot.pk)
        bot.version = versions_with_details().get(pk=version.pk)
        body = serializers.NewBotCreatedSerializer(bot, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": f"/api/bots/{bot.pk}/"})

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Rename or describe the bot through the same domain function as the site's edit page."""
        bot = self.get_object()
        changes = serializers.BotUpdateSerializer(bot, data=request.data, partial=True)
        changes.is_valid(raise_exception=True)
        try:
            bot_changes.edit(bot, **changes.validated_data)
        except bot_changes.ChangeRefused as error:
            raise ValidationError({error.field or "non_field_errors": [str(error)]}) from None
        return self._bot(bot)

    def _bot(self, bot: Bot) -> Response:
        return Response(serializers.BotSerializer(self.get_queryset().get(pk=bot.pk)).data)

    @action(detail=True, methods=["post"], filterset_class=None)
    def retire(self, request: Request, pk: str) -> Response:
        """Take your bot off the ladder (its games stay); retiring a retired bot changes nothing."""
        bot = self.get_object()
        bot_changes.retire(bot)
        return self._bot(bot)

    @action(detail=True, methods=["post"], filterset_class=None)
    def unretire(self, request: Request, pk: str) -> Response:
        """Bring your retired bot back to the ladder (unless the staff disabled it)."""
        bot = self.get_object()
        bot_changes.unretire(bot)
        return self._bot(bot)

    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser], filterset_class=None)
    def versions(self, request: Request, pk: str) -> Response:
        """GET: the bot's versions, newest first. POST (owner): upload a new version, checked as the form checks it."""
        bot = self.get_object()
        if request.method == "POST":
            return self._upload_version(request, bot)
        page = self.paginate_queryset(versions_with_details().filter(bot=bot).order_by("-number"))
        data = serializers.VersionSerializer(page, many=True, context=self.get_serializer_context()).data
        return self.get_paginated_response(data)

    def _upload_version(self, request: Request, bot: Bot) -> Response:
        form = NewVersionForm(request.data, request.FILES)
        if not form.is_valid():
            raise form_error(form)
        try:
            version = add_version(bot, form.cleaned_data["file"])
        except UploadRejected as error:
            raise ValidationError({"file": [str(error)]}) from None
        shown = versions_with_details().get(pk=version.pk)
        body = serializers.VersionSerializer(shown, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": f"/api/versions/{version.pk}/"})

    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def ratings(self, request: Request, pk: str) -> Response:
        """Each version's ratings over time (see league/api/ratings.py)."""
        bot = self.get_object()
        versions = list(bot.versions.select_related("rating").order_by("number"))
        points = rating_points(bot, versions)
        rows = [{"version": version, "points": points[version.pk]} for version in versions]
        return Response(serializers.VersionRatingsSerializer(rows, many=True).data)


def ladder_rank(bot: Bot) -> int | None:
    """The rank the leaderboard gives `bot` (`leaderboards.rank_of`, one query); None off the ladder or unrated."""
    rating = getattr(bot.active_version, "rating", None) if bot.active_version_id else None
    if rating is None or bot.game not in COMPETITIVE_GAMES or not bot.is_on_ladder:
        return None
    return leaderboards.rank_of(bot.game, rating.elo)


@docs.versions
class VersionViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """One version of a bot; its private details and its source only for the owner and staff."""

    queryset = versions_with_details()
    serializer_class = serializers.VersionSerializer

    @docs.version_source
    def source(self, request: Request, pk: str) -> HttpResponse:
        """The uploaded file, for the bot's owner and staff; a 404 for everyone else (as if it did not exist)."""
        version = get_object_or_404(BotVersion.objects.select_related("bot"), pk=pk)
        if not sees_private(request.user, version.bot.owner_id):
            raise NotFound("no such version source")
        try:
            upload = versions.download(version)
        except versions.NotAllowed as error:
            raise NotFound(str(error)) from None
        return upload.as_attachment()


@docs.tournaments
class TournamentViewSet(viewsets.ReadOnlyModelViewSet):
    """Tournaments, newest first, with their standings and crosstable."""

    queryset = Tournament.objects.annotate(entry_count=Count("entries")).order_by("-created", "-pk")
    serializer_class = serializers.TournamentSerializer
    filterset_class = TournamentFilter

    def get_serializer_class(self) -> type:
        return serializers.TournamentDetailSerializer if self.action == "retrieve" else serializers.TournamentSerializer

    def retrieve(self, request: Request, pk: str) -> Response:
        tournament = self.get_object()
        tournament.games_played, tournament.games_planned = tournament.progress()
        tournament.entries_shown = tournament.entries.select_related("bot__owner", "version").order_by("pk")
        return Response(self.get_serializer(tournament).data)

    def _cached(self, name: str, build: Any) -> Response:
        """The tournament's `build(tournament)` kept in the page cache until the tournament changes (as the site)."""
        tournament = self.get_object()
        key = f"api-{name}:{tournament.pk}:{tournament.status}"
        return Response(caching.fragment(key, caching.tournament_scope(tournament.pk), lambda: build(tournament)))

    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def standings(self, request: Request, pk: str) -> Response:
        """Points, then wins: the tournament's table (from `league.arena.tournaments.standings.table`)."""
        return self._cached("standings", standings_data)

    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def crosstable(self, request: Request, pk: str) -> Response:
        """Each participant's points and games against each other one, in standings order."""
        return self._cached("crosstable", crosstable_data)


def standings_data(tournament: Tournament) -> list:
    table = standings.table(tournament)
    rows = [
        {
            "rank": rank,
            "bot": standing.version.bot,
            "version": standing.version,
            "games": standing.games,
            "wins": standing.wins,
            "losses": standing.losses,
            "draws": standing.draws,
            "points": standing.points,
            "score_percent": standing.score_percent,
        }
        for rank, standing in enumerate(table.standings, start=1)
    ]
    return json_ready(serializers.StandingSerializer(rows, many=True).data)


def crosstable_data(tournament: Tournament) -> dict:
    table = standings.table(tournament)
    rows = []
    for row, _ in table.crosstable:
        results = []
        for column in table.standings:
            if column is row:
                continue
            points, played = row.results.get(column.version.pk, (0.0, 0))
            results.append({"opponent": column.version.pk, "points": points, "games": played})
        rows.append({"bot": row.version.bot, "version": row.version, "results": results})
    return json_ready(serializers.CrosstableSerializer({"rows": rows}).data)


def json_ready(data: Any) -> Any:
    """Serializer output as plain lists and dicts, to keep in the cache."""
    return json.loads(JSONRenderer().render(data))


@docs.matches
class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    """Matches, newest first; validation matches only for the candidate's owner and staff."""

    serializer_class = serializers.MatchSerializer
    filterset_class = MatchFilter

    def get_queryset(self) -> QuerySet[Match]:
        matches = Match.objects.prefetch_related(entries_with_bots()).order_by("-pk")
        return visible_matches(self.request.user, matches)

    def get_serializer_class(self) -> type:
        return serializers.MatchDetailSerializer if self.action == "retrieve" else serializers.MatchSerializer

    def get_object(self) -> Match:
        match = super().get_object()
        match.games_shown = list(match.played_games.defer("log_zlib").order_by("index")[:MATCH_GAMES_SHOWN])
        return match

    @action(detail=True, methods=["get"], filterset_class=None)
    def games(self, request: Request, pk: str) -> Response:
        """The match's games by index, paginated, each with its seats."""
        match = get_object_or_404(self.get_queryset(), pk=pk)
        played = (
            match.played_games.defer("log_zlib")
            .prefetch_related(Prefetch("seats", queryset=seats_with_bots()))
            .order_by("index")
        )
        page = self.paginate_queryset(played)
        return self.get_paginated_response(serializers.GameSerializer(page, many=True).data)


def seats_with_bots() -> QuerySet[GameSeat]:
    return GameSeat.objects.select_related("version__bot__owner").order_by("seat")


@docs.games
class GameViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """One game with its seats, and its log (re-verified by the engine on every read)."""

    serializer_class = serializers.GameSerializer

    def get_queryset(self) -> QuerySet[Game]:
        shown = Game.objects.defer("log_zlib").prefetch_related(Prefetch("seats", queryset=seats_with_bots()))
        return shown.filter(match__in=visible_matches(self.request.user, Match.objects.all()))

    @docs.game_log
    def log(self, request: Request, pk: str) -> HttpResponse:
        """The game's JSON log as stored, after the engine replayed it to the recorded result."""
        game = get_object_or_404(
            Game.objects.filter(match__in=visible_matches(request.user, Match.objects.all())), pk=pk
        )
        try:
            log = game.verified_log()
        except LogTampered as error:
            raise LogConflict(str(error)) from None
        response = HttpResponse(games.dumps_log(log), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
        return response


class LogConflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "log_tampered"
    default_detail = "the stored log does not replay to the recorded result"


@docs.leaderboards
class LeaderboardViewSet(viewsets.ViewSet):
    """Each game's ladder: bots by Elo with their rank (ties share one), unrated bots last."""

    lookup_field = "game"
    lookup_value_regex = "|".join(GAME_NAMES)

    def list(self, request: Request) -> Response:
        return Response([{"game": game, "name": name, "url": board_url(game)} for game, name in GAME_NAMES.items()])

    def retrieve(self, request: Request, game: str) -> Response:
        if game not in COMPETITIVE_GAMES:
            where = board_url(game) or "a season's /leaderboard/ once the first season starts"
            raise NotFound(f"{GAME_NAMES[game]} is a co-op challenge: its leaderboards are per season, at {where}")
        pages = Pages()
        per_page = pages.get_page_size(request)
        raw = request.query_params.get(pages.page_query_param, "1")
        if not raw.isdigit() or int(raw) < 1:
            raise NotFound(f"{raw[:20]!r} is not a page number")
        number = int(raw)
        page = caching.fragment(
            f"api-ladder:{game}:{number}:{per_page}",
            caching.leaderboard_scope(game),
            lambda: ladder_page_data(game, number, per_page),
        )
        if page["number"] != number:
            raise NotFound(f"the {GAME_NAMES[game]} leaderboard has {page['num_pages']} pages")
        url = request.build_absolute_uri()
        previous = None
        if number > 1:
            previous = replace_query_param(url, "page", number - 1) if number > 2 else remove_query_param(url, "page")
        return Response(
            {
                "count": page["count"],
                "next": replace_query_param(url, "page", number + 1) if number < page["num_pages"] else None,
                "previous": previous,
                "results": page["rows"],
            }
        )


def board_url(game: str) -> str | None:
    """Where a game's leaderboard is: its Elo ladder, or a co-op game's current season (None before the first)."""
    if game in COMPETITIVE_GAMES:
        return f"/api/leaderboards/{game}/"
    season = challenges.current_season(game)
    return f"/api/seasons/{season.pk}/leaderboard/" if season else None


def ladder_page_data(game: str, number: int, per_page: int) -> dict:
    """One leaderboard page as plain data (kept in the page cache until the next refit, as the site's)."""
    page = leaderboards.leaderboard_page(game, number, per_page=per_page)
    rows = [
        {"rank": r.rank, "bot": r.bot, "version": r.version, "rating": r.rating, "separated": r.separated}
        for r in page.rows
    ]
    return {
        "number": page.number,
        "num_pages": page.num_pages,
        "count": page.count,
        "rows": json_ready(serializers.LadderRowSerializer(rows, many=True).data),
    }
