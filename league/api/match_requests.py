"""/api/match-requests/: scrims through the API. Ask for unrated games of your bot against another active bot, list
your requests, follow one to its result and replays (league/arena/scrims/requests.py does the work).

Every request is private: its owner lists and reads it, staff read any, everyone else gets a 404 (or a 401 when
not signed in). Asking past the daily quota is a 429 with `code` `quota_exceeded` and a Retry-After header.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import APIException, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from league.api import docs
from league.api.serializers import BotRefSerializer, VersionRefSerializer
from league.arena.lib import quotas
from league.arena.models import Bot, MatchRequest
from league.arena.scrims import requests as scrims

# --- Serializers -------------------------------------------------------------------------------------------------


class MatchRequestSerializer(serializers.ModelSerializer):
    """A request with its progress (set by `scrims.attach_progress`)."""

    bot = BotRefSerializer(read_only=True)
    version = VersionRefSerializer(read_only=True, help_text="The version that plays: the active one when asked.")
    opponent = BotRefSerializer(read_only=True)
    opponent_version = VersionRefSerializer(read_only=True)
    status = serializers.ChoiceField(
        choices=scrims.State.CHOICES, source="progress.state", read_only=True, help_text="queued, running, done, failed"
    )
    games_played = serializers.IntegerField(source="progress.played", read_only=True)
    wins = serializers.IntegerField(source="progress.wins", read_only=True, help_text="Games your bot won.")
    losses = serializers.IntegerField(source="progress.losses", read_only=True)
    draws = serializers.IntegerField(source="progress.draws", read_only=True)
    result = serializers.CharField(read_only=True, help_text="The score in words, naming the bots.")
    reason = serializers.CharField(source="progress.reason", read_only=True, help_text="Why it failed, if it did.")
    page = serializers.SerializerMethodField(help_text="The request's page on the site.")

    class Meta:
        model = MatchRequest
        fields = [
            *("id", "bot", "version", "opponent", "opponent_version", "games", "games_played", "status"),
            *("wins", "losses", "draws", "result", "reason", "created", "page"),
        ]

    def get_page(self, scrim: MatchRequest) -> str:
        return scrim.get_absolute_url()


class ScrimGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    match = serializers.IntegerField()
    result = serializers.CharField(help_text="The game's result in words, naming the bots.")
    replay = serializers.CharField(help_text="The replay page on the site, /games/<id>/.")
    log_url = serializers.CharField(help_text="The game's JSON log in the API.")


class MatchRequestDetailSerializer(MatchRequestSerializer):
    matches = serializers.ListField(child=serializers.IntegerField(), read_only=True, source="match_ids")
    played_games = ScrimGameSerializer(many=True, read_only=True, help_text="Every game played so far, in order.")

    class Meta(MatchRequestSerializer.Meta):
        fields = [*MatchRequestSerializer.Meta.fields, "matches", "played_games"]


class NewMatchRequestSerializer(serializers.Serializer):
    bot = serializers.IntegerField(help_text="The id of your bot: its active version plays.")
    opponent = serializers.IntegerField(help_text="The id of any other active bot of the same game.")
    games = serializers.IntegerField(min_value=1, max_value=scrims.MAX_GAMES)


class QuotaExceeded(APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "quota_exceeded"

    def __init__(self, message: str, wait: float) -> None:
        super().__init__(message)
        self.wait = max(1, int(wait))  # the error handler turns it into Retry-After

    @classmethod
    def of(cls, refused: quotas.OverQuota) -> QuotaExceeded:
        """The 429 for a request a daily quota refused, its Retry-After counted to the quota's `retry_at`."""
        return cls(str(refused), refused.retry_after(timezone.now()))


# --- The OpenAPI description ---------------------------------------------------------------------------------------

REQUEST = {
    "id": 12,
    "bot": docs.BOT_REF,
    "version": docs.VERSION_REF,
    "opponent": docs.OTHER_ENTRY["bot"],
    "opponent_version": docs.OTHER_ENTRY["version"],
    "games": 10,
    "games_played": 10,
    "status": "done",
    "wins": 6,
    "losses": 4,
    "draws": 0,
    "result": "alice/cautious beat bob/greedy 6–4",
    "reason": "",
    "created": docs.WHEN,
    "page": "/scrims/12/",
}
REQUEST_DETAIL = {
    **REQUEST,
    "matches": [1300],
    "played_games": [
        {
            "id": 5101,
            "match": 1300,
            "result": "alice/cautious wins: bob/greedy was stuck",
            "replay": "/games/5101/",
            "log_url": "/api/games/5101/log",
        }
    ],
}
QUOTA = docs.error(
    429,
    "quota_exceeded",
    "you may ask for 100 scrim games in 24 hours and have asked for 95; 5 left now, so 10 is too many "
    "(more from 2026-11-27 09:30 UTC)",
)
REFUSED = docs.error(400, "invalid", "bob/greedy has no active version")
NOT_YOURS = docs.error(403, "permission_denied", "only alice can ask for scrims of alice/cautious")
NO_SUCH_REQUEST = docs.error(404, "not_found", "No MatchRequest matches the given query.")

schema = extend_schema_view(
    list=extend_schema(
        summary="List your scrim requests, newest first",
        description="Only your own requests. Filter: `bot` (your bot's id).",
        parameters=docs.PAGING,
        responses={200: MatchRequestSerializer(many=True), 401: docs.NOT_AUTHENTICATED, **docs.LIST_ERRORS},
        examples=[docs.example("requests", REQUEST)],
    ),
    retrieve=extend_schema(
        summary="A scrim request with its games and replays",
        description="Yours (staff: anyone's); a 404 for everyone else.",
        responses={200: MatchRequestDetailSerializer, 401: docs.NOT_AUTHENTICATED, 404: NO_SUCH_REQUEST},
        examples=[docs.example("request", REQUEST_DETAIL)],
    ),
    create=extend_schema(
        summary="Ask for a scrim: unrated games of your bot against another active bot",
        description=(
            "JSON `{bot, opponent, games}`. Your bot's active version plays `games` (1 to "
            f"{scrims.MAX_GAMES}) unrated games against the opponent's active version, in matches of "
            f"{scrims.CHUNK_GAMES}, when the league's workers have no ladder, tournament or validation match waiting. "
            "Each user may ask for a number of scrim games in any 24 hours (a 429 `quota_exceeded` beyond it). "
            "Poll the request until `status` is `done` or `failed`."
        ),
        request=NewMatchRequestSerializer,
        responses={
            201: MatchRequestDetailSerializer,
            400: REFUSED,
            401: docs.NOT_AUTHENTICATED,
            403: NOT_YOURS,
            429: QUOTA,
        },
        examples=[
            OpenApiExample("ask", value={"bot": 7, "opponent": 9, "games": 10}, request_only=True),
            docs.example(
                "asked",
                {
                    **REQUEST_DETAIL,
                    **{"status": "queued", "games_played": 0, "wins": 0, "losses": 0},
                    **{"result": "no games played yet", "matches": [], "played_games": []},
                },
                status_codes=["201"],
            ),
        ],
    ),
)


# --- The endpoint ------------------------------------------------------------------------------------------------


@schema
class MatchRequestViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Scrim requests: yours to list and read (staff read any); POST asks for a new one."""

    permission_classes = [IsAuthenticated]
    filterset_fields = ["bot"]

    queryset = MatchRequest.objects.none()  # the model, for the schema; get_queryset says whose requests

    def get_queryset(self) -> QuerySet[MatchRequest]:
        shown = MatchRequest.objects.select_related("bot__owner", "opponent__owner", "version", "opponent_version")
        user = self.request.user
        if not user.is_authenticated:  # the schema generator's anonymous request; permissions refuse real ones
            return shown.none()
        if self.action == "retrieve" and user.is_staff:
            return shown.order_by("-created", "-pk")
        return shown.filter(requester=user).order_by("-created", "-pk")

    def get_serializer_class(self) -> type:
        return MatchRequestSerializer if self.action == "list" else MatchRequestDetailSerializer

    def paginate_queryset(self, queryset: Any) -> Any:
        page = super().paginate_queryset(queryset)
        scrims.attach_progress(page if page is not None else [])
        return page

    def get_object(self) -> MatchRequest:
        scrim = super().get_object()
        return with_games(scrim)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        asked = NewMatchRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        data = asked.validated_data
        bot = _bot(data["bot"], "bot")
        opponent = _bot(data["opponent"], "opponent")
        if bot.owner_id != request.user.pk:
            raise PermissionDenied(f"only {bot.owner.username} can ask for scrims of {bot.full_name}")
        try:
            scrim = scrims.request_scrim(request.user, bot, opponent, data["games"])
        except scrims.QuotaExceeded as error:
            raise QuotaExceeded.of(error) from None
        except scrims.ScrimRefused as error:
            raise ValidationError(str(error)) from None
        shown = with_games(self.get_queryset().get(pk=scrim.pk))
        body = MatchRequestDetailSerializer(shown, context=self.get_serializer_context()).data
        location = reverse("api:match-request-detail", args=[scrim.pk])
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})


def _bot(pk: int, field: str) -> Bot:
    bot = Bot.objects.select_related("owner").filter(pk=pk).first()
    if bot is None:
        raise ValidationError({field: [f"there is no bot {pk}"]})
    return bot


def with_games(scrim: MatchRequest) -> MatchRequest:
    """The request with its progress, its match ids and its games (each with a replay address)."""
    scrims.attach_progress([scrim])
    scrim.match_ids = list(scrim.matches.order_by("pk").values_list("pk", flat=True))
    scrim.played_games = [
        {
            "id": game.pk,
            "match": game.match_id,
            "result": words,
            "replay": reverse("game", args=[game.pk]),
            "log_url": reverse("api:game-log", args=[game.pk]),
        }
        for game, _, words in scrims.games_of(scrim)
    ]
    return scrim
