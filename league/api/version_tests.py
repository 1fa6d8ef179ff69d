"""/api/tests/: version tests through the API. Start a test of your bot's version against another version or another
active bot, list and follow tests, cancel yours (league/arena/versiontests/running.py does the work).

A test is its owner's unless they made it public: anyone reads public tests, its owner and staff read any, everyone
else gets a 404. Starting one past a quota (tests at once, games per day) is a 429 with `code` `quota_exceeded` and
a Retry-After header. The statistics (`sprt`) are the same record `python -m bots sprt --json` prints.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from league.api import docs
from league.api.filters import VersionTestFilter
from league.api.match_requests import QuotaExceeded
from league.api.serializers import BotRefSerializer, VersionRefSerializer
from league.arena.models import BotVersion, VersionTest
from league.arena.versiontests import running
from league.arena.versiontests.views import visible

# --- Serializers -------------------------------------------------------------------------------------------------


class VersionTestSerializer(serializers.ModelSerializer):
    bot = BotRefSerializer(read_only=True)
    version = VersionRefSerializer(read_only=True, help_text="NEW: the version under test.")
    base_bot = BotRefSerializer(read_only=True)
    base_version = VersionRefSerializer(read_only=True, help_text="BASE: what NEW is tested against.")
    sentence = serializers.SerializerMethodField(help_text="The verdict (or the state) in plain words.")
    sprt = serializers.SerializerMethodField(
        help_text="The test's statistics, recomputed from its counts: verdict (H1, H0 or null), llr, lower, upper, "
        "games, pairs, pentanomial (or trinomial for co-op), elo, elo_ci, los, nelo, ... (docs/sprt.md)."
    )
    page = serializers.SerializerMethodField(help_text="The test's page on the site.")

    class Meta:
        model = VersionTest
        fields = [
            *("id", "bot", "version", "base_bot", "base_version", "game", "players"),
            *("elo0", "elo1", "elo_model", "alpha", "beta", "max_games", "public", "status", "verdict"),
            *("sentence", "sprt", "error", "created", "started_at", "finished_at", "page"),
        ]

    def get_sentence(self, test: VersionTest) -> str:
        return running.sentence(test)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_sprt(self, test: VersionTest) -> dict[str, Any]:
        return running.status_of(test).to_json()

    def get_page(self, test: VersionTest) -> str:
        return test.get_absolute_url()


class VersionTestDetailSerializer(VersionTestSerializer):
    history = serializers.JSONField(read_only=True, help_text="[games, llr] after each batch, for a chart.")
    matches = serializers.ListField(child=serializers.IntegerField(), read_only=True, source="match_ids")

    class Meta(VersionTestSerializer.Meta):
        fields = [*VersionTestSerializer.Meta.fields, "history", "matches"]


class NewVersionTestSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="NEW: the id of a validated version of your bot.")
    base_version = serializers.IntegerField(
        help_text="BASE: the id of another version of the same bot, or of the active version of any bot of its game."
    )
    elo0 = serializers.FloatField(default=0.0, help_text="H0: the Elo difference at most (default 0).")
    elo1 = serializers.FloatField(default=5.0, help_text="H1: the Elo difference at least (default 5).")
    elo_model = serializers.ChoiceField(choices=VersionTest.Model.choices, default=VersionTest.Model.NORMALIZED)
    alpha = serializers.FloatField(default=0.05)
    beta = serializers.FloatField(default=0.05)
    max_games = serializers.IntegerField(required=False, help_text="The game cap (default: the server's largest).")
    players = serializers.IntegerField(required=False, help_text="Co-op games: the team size (default 1).")
    public = serializers.BooleanField(default=False, help_text="Anyone may see the test.")


# --- The OpenAPI description ---------------------------------------------------------------------------------------

SPRT = {
    "verdict": "H1",
    "llr": 2.957,
    "lower": -2.944,
    "upper": 2.944,
    "elo0": 0.0,
    "elo1": 5.0,
    "elo_model": "normalized",
    "alpha": 0.05,
    "beta": 0.05,
    "games": 1840,
    "pairs": 920,
    "pentanomial": [120, 0, 462, 0, 338],
    "score": 0.5598,
    "elo": 41.8,
    "elo_ci": [32.5, 51.1],
    "elo_error": 9.3,
    "los": 1.0,
    "nelo": 62.1,
    "nelo_ci": [48.3, 75.9],
}
TEST = {
    "id": 5,
    "bot": docs.BOT_REF,
    "version": {**docs.VERSION_REF, "id": 33, "number": 4},
    "base_bot": docs.BOT_REF,
    "base_version": docs.VERSION_REF,
    **{"game": "face-to-face", "players": 2, "elo0": 0.0, "elo1": 5.0, "elo_model": "normalized"},
    **{"alpha": 0.05, "beta": 0.05, "max_games": 10000, "public": True, "status": "done", "verdict": "H1"},
    "sentence": "v4 is stronger than v3: +41.8 ± 9.3 Elo after 1,840 games",
    "sprt": SPRT,
    "error": "",
    "created": docs.WHEN,
    "started_at": docs.WHEN,
    "finished_at": docs.WHEN,
    "page": "/tests/5/",
}
TEST_DETAIL = {**TEST, "history": [[16, 0.41], [32, 0.77], [1840, 2.957]], "matches": [2001, 2002]}
QUOTA = docs.error(
    429, "quota_exceeded", "you may run 2 tests at once and have 2 running: wait for a verdict or cancel one"
)
REFUSED = docs.error(400, "invalid", "elo0 must be below elo1, got elo0=5, elo1=0")
NOT_YOURS = docs.error(403, "permission_denied", "only alice can test versions of alice/cautious")
NO_SUCH_TEST = docs.error(404, "not_found", "No VersionTest matches the given query.")

schema = extend_schema_view(
    list=extend_schema(
        summary="List version tests, newest first",
        description="Public tests and your own (staff: every test). Filters: `bot`, `status`, `mine=true`.",
        parameters=docs.PAGING,
        responses={200: VersionTestSerializer(many=True), **docs.LIST_ERRORS},
        examples=[docs.example("tests", TEST)],
    ),
    retrieve=extend_schema(
        summary="A version test with its LLR history",
        description="Public, or yours (staff: any); a 404 for everyone else. Poll it until `status` is not `queued` "
        "or `running`.",
        responses={200: VersionTestDetailSerializer, 404: NO_SUCH_TEST},
        examples=[docs.example("test", TEST_DETAIL)],
    ),
    create=extend_schema(
        summary="Start a version test: is NEW stronger than BASE?",
        description=(
            "JSON `{version, base_version, elo0, elo1, elo_model, alpha, beta, max_games, players, public}`; only "
            "`version` and `base_version` are required (defaults: normalized Elo, H0 = 0, H1 = 5, alpha = beta = "
            "0.05). The test plays unrated game pairs on the same deals (co-op: both versions on the same deals) in "
            "batches until the SPRT accepts H1 or H0 or the cap is reached, below the ladder's, tournaments' and "
            "validations' matches. Per user, a number of tests at once and of games in any 24 hours "
            "(a 429 `quota_exceeded` with Retry-After beyond them)."
        ),
        request=NewVersionTestSerializer,
        responses={
            201: VersionTestDetailSerializer,
            400: REFUSED,
            401: docs.NOT_AUTHENTICATED,
            403: NOT_YOURS,
            429: QUOTA,
        },
        examples=[
            OpenApiExample("start", value={"version": 33, "base_version": 31, "public": True}, request_only=True),
            docs.example(
                "started",
                {
                    **TEST_DETAIL,
                    **{"status": "queued", "verdict": "", "history": [], "matches": [], "finished_at": None},
                    **{"sentence": "v4 against v3: no games played yet", "started_at": None},
                    "sprt": {**SPRT, "verdict": None, "llr": 0.0, "games": 0, "pairs": 0, "pentanomial": [0] * 5},
                },
                status_codes=["201"],
            ),
        ],
    ),
    cancel=extend_schema(
        summary="Cancel your test",
        description="No more batches are played (those being played finish, uncounted). Cancelling an ended test "
        "changes nothing.",
        request=None,
        responses={200: VersionTestDetailSerializer, 401: docs.NOT_AUTHENTICATED, 404: NO_SUCH_TEST},
        examples=[docs.example("cancelled", {**TEST_DETAIL, "status": "cancelled", "verdict": ""})],
    ),
)


# --- The endpoint ------------------------------------------------------------------------------------------------


@schema
class VersionTestViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Version tests: public ones and yours to list and read; POST starts one; POST .../cancel/ stops yours."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    filterset_class = VersionTestFilter
    queryset = VersionTest.objects.none()  # the model, for the schema; get_queryset says whose tests

    def get_queryset(self) -> QuerySet[VersionTest]:
        return visible(self.request.user).order_by("-created", "-pk")

    def get_serializer_class(self) -> type:
        return VersionTestSerializer if self.action == "list" else VersionTestDetailSerializer

    def get_object(self) -> VersionTest:
        return with_matches(super().get_object())

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        asked = NewVersionTestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        data = asked.validated_data
        version = _version(data["version"], "version")
        base = _version(data["base_version"], "base_version")
        if version.bot.owner_id != request.user.pk:
            raise PermissionDenied(f"only {version.bot.owner.username} can test versions of {version.bot.full_name}")
        try:
            test = running.start(
                request.user,
                version,
                base,
                **{key: data[key] for key in ("elo0", "elo1", "elo_model", "alpha", "beta", "public")},
                max_games=data.get("max_games"),
                players=data.get("players"),
            )
        except running.QuotaExceeded as error:
            raise QuotaExceeded.of(error) from None
        except running.TestRefused as error:
            raise ValidationError(str(error)) from None
        shown = with_matches(self.get_queryset().get(pk=test.pk))
        body = VersionTestDetailSerializer(shown, context=self.get_serializer_context()).data
        location = reverse("api:version-test-detail", args=[test.pk])
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})

    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        test = self.get_object()
        if test.owner_id != request.user.pk and not request.user.is_staff:
            raise NotFound("No VersionTest matches the given query.")
        running.cancel(request.user, test)
        test = with_matches(self.get_queryset().get(pk=test.pk))
        return Response(VersionTestDetailSerializer(test, context=self.get_serializer_context()).data)


def _version(pk: int, field: str) -> BotVersion:
    version = BotVersion.objects.select_related("bot__owner").filter(pk=pk).first()
    if version is None:
        raise ValidationError({field: [f"there is no version {pk}"]})
    return version


def with_matches(test: VersionTest) -> VersionTest:
    test.match_ids = list(test.matches.order_by("pk").values_list("pk", flat=True))
    return test
