"""/api/games/<id>/analysis/: the house expert's analysis of a game (league/arena/analysis does the work).

GET reads it (404 until someone asked); POST asks for it: anyone signed in may, the analysis is shared, and a new
one counts against the asker's daily limit (a 429 `quota_exceeded` with Retry-After past it). Poll GET until
`status` is `done` or `failed`; `turns_done` of `turns_total` is the progress meanwhile.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from league.api import docs
from league.api.match_requests import QuotaExceeded
from league.api.permissions import visible_matches
from league.arena.analysis import requests as analyses
from league.arena.models import Game, GameAnalysis, Match

# --- Serializers -------------------------------------------------------------------------------------------------


class AnalysedTurnSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    seat = serializers.IntegerField(help_text="The mover.")
    played = serializers.CharField(help_text="The turn played, as cards>piles.")
    best = serializers.CharField(help_text="The better of the turn played and the expert's own turn.")
    before = serializers.FloatField(help_text="Win probability before the turn (the mover's; co-op: the team's).")
    after = serializers.FloatField(help_text="... after the turn played.")
    best_value = serializers.FloatField(help_text="... after the best turn.")
    loss = serializers.FloatField(help_text="best_value - after.")
    stderr = serializers.FloatField(help_text="The loss's standard error.")
    mark = serializers.ChoiceField(choices=["inaccuracy", "mistake", "blunder"], allow_null=True)
    accuracy = serializers.FloatField()
    samples = serializers.IntegerField(required=False, help_text="Rollouts drawn for this turn.")
    values_stderr = serializers.DictField(
        child=serializers.FloatField(), required=False, help_text="Standard errors of before, after and best_value."
    )
    cards_before = serializers.FloatField(
        required=False,
        help_text="Expected cards left at the end, 0 after a win (the mover's own in Face to Face; co-op: the team's), "
        "with the expert's turn. Absent from analyses stored before Face to Face counted cards.",
    )
    cards_after = serializers.FloatField(required=False, help_text="... after the turn played.")
    cards_best = serializers.FloatField(required=False, help_text="... after the best turn.")
    cards_loss = serializers.FloatField(required=False, help_text="cards_after - cards_best.")
    cards_stderr = serializers.FloatField(required=False, help_text="The cards loss's standard error.")


class AnalysisSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameAnalysis.Status.choices)
    turns_done = serializers.IntegerField(help_text="Turns analysed so far.")
    turns_total = serializers.IntegerField()
    rollouts = serializers.IntegerField(help_text="Rollouts per turn at most: the precision.")
    horizon = serializers.IntegerField()
    seed = serializers.CharField()
    created = serializers.DateTimeField(help_text="When it was first asked for.")
    finished_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField(help_text="Why it failed, if it did.")
    accuracy = serializers.DictField(
        child=serializers.FloatField(allow_null=True), allow_null=True, help_text="Per seat, once done."
    )
    turns = AnalysedTurnSerializer(many=True, allow_null=True, help_text="Every turn's figures, once done.")


# --- The OpenAPI description ---------------------------------------------------------------------------------------

TURN = {
    "turn": 17,
    "seat": 0,
    "played": "48>p0.up 50>p0.up",
    "best": "22>p1.down 48>p0.up",
    "before": 0.68,
    "after": 0.589,
    "best_value": 0.68,
    "loss": 0.091,
    "stderr": 0.0204,
    "mark": "inaccuracy",
    "accuracy": 67.9,
    "samples": 40,
    "values_stderr": {"before": 0.0179, "after": 0.0133, "best_value": 0.0179},
    "cards_before": 1.41,
    "cards_after": 2.6,
    "cards_best": 1.41,
    "cards_loss": 1.19,
    "cards_stderr": 0.22,
}
ANALYSIS = {
    "game": 5001,
    "status": "done",
    "turns_done": 41,
    "turns_total": 41,
    "rollouts": 256,
    "horizon": 1,
    "seed": "0",
    "created": docs.WHEN,
    "finished_at": docs.WHEN,
    "error": "",
    "accuracy": {"0": 88.4, "1": 97.0},
    "turns": [TURN],
}
RUNNING = {**ANALYSIS, "status": "running", "turns_done": 12, "finished_at": None, "accuracy": None, "turns": None}
NOT_ASKED = docs.error(404, "not_found", "game 5001 has not been analysed: POST to ask for it")
LIMIT = docs.error(
    429,
    "quota_exceeded",
    "you may ask for 20 analyses in 24 hours and have asked for 20 (the next from 2026-11-27 09:30 UTC); "
    "analyses others asked for are free to read",
)
TURNED_OFF = docs.error(
    403, "permission_denied", "asking for analyses is turned off on this server (ARENA_ANALYSES_PER_DAY is 0)"
)

read_schema = extend_schema(
    summary="A game's analysis by the house expert",
    description=(
        "Every turn judged from the mover's side: win probability and expected cards left before and after it, the "
        "expert's suggestion, the loss and its mark (inaccuracy, mistake, blunder), and each seat's accuracy "
        "(docs/analysis.md). "
        "While it runs, `turns_done` of `turns_total` is its progress. 404 until someone asks for it."
    ),
    responses={200: AnalysisSerializer, 404: NOT_ASKED},
    examples=[docs.example("analysis", ANALYSIS), docs.example("running", RUNNING)],
)
ask_schema = extend_schema(
    summary="Ask for a game's analysis",
    description=(
        "No body. Queues the analysis unless someone already asked for it (analyses are shared: 200 with it when it "
        "is done, 202 while it is queued or running; a failed one is queued again). A new analysis counts against "
        "your daily limit (429 `quota_exceeded` with Retry-After past it). Poll GET until `status` is `done`."
    ),
    request=None,
    responses={
        200: AnalysisSerializer,
        202: AnalysisSerializer,
        401: docs.NOT_AUTHENTICATED,
        403: TURNED_OFF,
        404: docs.error(404, "not_found", "No Game matches the given query."),
        429: LIMIT,
    },
    examples=[
        docs.example("queued", {**RUNNING, "status": "queued", "turns_done": 0}, status_codes=["202"]),
        docs.example("done", ANALYSIS, status_codes=["200"]),
    ],
)


# --- The endpoint ------------------------------------------------------------------------------------------------


class GameAnalysisView(APIView):
    """A game's analysis: anyone reads it, anyone signed in asks for it."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = AnalysisSerializer

    def _game(self, request: Request, pk: int) -> Game:
        shown = Game.objects.defer("log_zlib").filter(match__in=visible_matches(request.user, Match.objects.all()))
        return get_object_or_404(shown, pk=pk)

    @read_schema
    def get(self, request: Request, pk: int) -> Response:
        game = self._game(request, pk)
        analysis = analyses.current(game)
        if analysis is None:
            raise NotFound(f"game {game.pk} has not been analysed: POST to ask for it")
        return Response(AnalysisSerializer(analyses.describe(analysis)).data)

    @ask_schema
    def post(self, request: Request, pk: int) -> Response:
        game = self._game(request, pk)
        try:
            analysis, _ = analyses.ask(request.user, game)
        except analyses.LimitReached as error:
            raise QuotaExceeded.of(error) from None
        except analyses.AnalysisRefused as error:
            raise PermissionDenied(str(error)) from None
        done = analysis.status == GameAnalysis.Status.DONE
        body = AnalysisSerializer(analyses.describe(analysis)).data
        return Response(body, status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)
