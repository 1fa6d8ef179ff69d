"""The OpenAPI description of every endpoint: summaries, request bodies, error responses and an example each.

Applied to the viewsets in views.py with `extend_schema_view`; drf-spectacular builds /api/schema/ from it.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers as fields

from league.api import serializers
from league.arena.uploads.forms import NewBotForm, NewVersionForm

WHEN = "2026-11-26T12:00:00Z"
RATING = {
    "elo": 1612.4,
    "low": 1580.1,
    "high": 1644.7,
    "games": 120,
    "wins": 71,
    "losses": 49,
    "last_played": WHEN,
    "provisional": False,
}
BOT_REF = {"id": 7, "name": "cautious", "owner": "alice", "game": "face-to-face"}
VERSION_REF = {"id": 31, "number": 3, "sha256": "9f2c" + "0" * 60, "status": "active"}
BOT = {
    "id": 7,
    "name": "cautious",
    "owner": "alice",
    "game": "face-to-face",
    "description": "Plays the smallest jump first.",
    "house_ref": "",
    "created": WHEN,
    "active_version": {"id": 31, "number": 3, "sha256": VERSION_REF["sha256"], "created": WHEN, "rating": RATING},
    "on_ladder": True,
    "retired_at": None,
    "disabled_at": None,
    "output_public": False,
    "analyse_losses": True,
}
VERSION = {
    "id": 32,
    "bot": 7,
    "number": 4,
    "sha256": "51aa" + "0" * 60,
    "kind": "py",
    "filename": "bot.py",
    "size": 1834,
    "status": "failed",
    "created": WHEN,
    "validated_at": WHEN,
    "rating": None,
    "failure_reason": "crash in game 1: ZeroDivisionError",
    "stderr_tail": 'Traceback (most recent call last):\n  File "bot.py", line 12\nZeroDivisionError: division by zero',
    "validation_match": 901,
}
ENTRY = {"index": 0, "bot": BOT_REF, "version": VERSION_REF, "games": 10, "wins": 6, "losses": 4, "draws": 0}
ENTRY = {**ENTRY, "points": 6.0}
OTHER_ENTRY = {
    **ENTRY,
    "index": 1,
    "bot": {**BOT_REF, "id": 9, "name": "greedy", "owner": "bob"},
    "version": {**VERSION_REF, "id": 40, "number": 1},
    "wins": 4,
    "losses": 6,
    "points": 4.0,
}
MATCH = {
    "id": 1200,
    "kind": "ladder",
    "game": "face-to-face",
    "tournament": None,
    "status": "done",
    "games": 10,
    "games_done": 10,
    "rated": True,
    "seed": "ladder-1200",
    "duplicate": True,
    "created": WHEN,
    "started_at": WHEN,
    "finished_at": WHEN,
    "entries": [ENTRY, OTHER_ENTRY],
}
GAME_SUMMARY = {
    "id": 5001,
    "index": 0,
    "seed": "ladder-1200:0",
    "start_seat": 0,
    "termination": "stuck",
    "winner_seat": 0,
    "fault_seat": None,
    "score": None,
    "turns": 41,
}
SEATS = [
    {"seat": 0, "bot": BOT_REF, "version": VERSION_REF, "points": 1.0},
    {"seat": 1, "bot": OTHER_ENTRY["bot"], "version": OTHER_ENTRY["version"], "points": 0.0},
]
GAME = {
    **GAME_SUMMARY,
    "match": 1200,
    "game": "face-to-face",
    "detail": "",
    "played_at": WHEN,
    "seats": SEATS,
    "log_url": "/api/games/5001/log",
}
TOURNAMENT = {
    "id": 3,
    "name": "Autumn cup",
    "game": "face-to-face",
    "format": "round-robin",
    "games_per_pairing": 10,
    "duplicate": True,
    "status": "finished",
    "scheduled_at": None,
    "created": WHEN,
    "started_at": WHEN,
    "finished_at": WHEN,
    "entry_count": 2,
}
STANDING = {"rank": 1, "bot": BOT_REF, "version": VERSION_REF, "games": 10, "wins": 6, "losses": 4, "draws": 0}
STANDING = {**STANDING, "points": 6.0, "score_percent": 60.0}


def page(*rows: dict) -> dict:
    return {"count": len(rows), "next": None, "previous": None, "results": list(rows)}


def example(name: str, value: object, **kwargs: object) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, **kwargs)


def error(status: int, code: str, message: str) -> OpenApiResponse:
    return OpenApiResponse(
        serializers.ErrorSerializer,
        description=message,
        examples=[example(code, {"error": {"status": status, "code": code, "message": message}})],
    )


NOT_FOUND = error(404, "not_found", "No Bot matches the given query.")
NOT_AUTHENTICATED = error(401, "not_authenticated", "Authentication credentials were not provided.")
NOT_OWNER = error(403, "permission_denied", "only the bot's owner can change it")
THROTTLED = error(429, "throttled", "Request was throttled. Expected available in 3000 seconds.")
INVALID_UPLOAD = OpenApiResponse(
    serializers.ErrorSerializer,
    description="The upload was refused: `fields` says why, with the same messages as the site's form.",
    examples=[
        example(
            "invalid",
            {
                "error": {
                    "status": 400,
                    "code": "invalid",
                    "message": "file: bot.py does not compile: line 3: expected ':'",
                    "fields": {"file": ["bot.py does not compile: line 3: expected ':'"]},
                }
            },
        )
    ],
)
INVALID_QUERY = error(400, "invalid", "game: Select a valid choice. chess is not one of the available choices.")
LIST_ERRORS = {400: INVALID_QUERY, 404: error(404, "not_found", "Invalid page.")}
# Text filters refuse a NUL character (400), as every Django form field does: the schema says so.
NO_NUL = r"^[^\x00]*$"
TEXT_FILTERS = [
    OpenApiParameter("name", str, description="The bot's name, any case.", pattern=NO_NUL),
    OpenApiParameter("owner", str, description="The owner's username.", pattern=NO_NUL),
]
PAGING = [
    OpenApiParameter("page", int, description="Page number, from 1; past the last page is a 404."),
    OpenApiParameter("page_size", int, description="Rows per page (default 50, at most 200)."),
]


def form_request(form: type, name: str) -> type:
    """The multipart body of a form, described from the form's own fields (the form does the checking)."""
    declared = {}
    for field_name, field in form.base_fields.items():
        kwargs = {"required": field.required, "help_text": str(field.help_text or "") or None}
        if field_name == "file":
            declared[field_name] = fields.FileField(**kwargs)
        elif getattr(field, "choices", None):
            declared[field_name] = fields.ChoiceField(choices=list(field.choices), **kwargs)
        else:
            declared[field_name] = fields.CharField(
                max_length=field.max_length, allow_blank=not field.required, **kwargs
            )
    return inline_serializer(name, declared)


users = extend_schema_view(
    list=extend_schema(
        summary="List users",
        parameters=PAGING,
        responses={200: serializers.UserSerializer(many=True), **LIST_ERRORS},
        examples=[example("users", {"username": "alice", "date_joined": WHEN})],
    ),
    retrieve=extend_schema(
        summary="A user's public profile",
        responses={200: serializers.UserProfileSerializer, 404: NOT_FOUND},
        examples=[
            example("alice", {"username": "alice", "date_joined": WHEN, "bot_count": 1, "bots": [BOT]}),
        ],
    ),
)

bots = extend_schema_view(
    list=extend_schema(
        summary="List bots",
        description=(
            "Filters: `game`, `owner` (username), `active` (true: on the ladder: an active version, neither retired "
            "nor disabled), `name`, `mine`."
        ),
        parameters=[*PAGING, *TEXT_FILTERS],
        responses={200: serializers.BotSerializer(many=True), **LIST_ERRORS},
        examples=[example("bots", BOT)],
    ),
    retrieve=extend_schema(
        summary="A bot",
        description="Also its `rank` on its game's leaderboard, so one more read finds its row there: "
        "`/api/leaderboards/{game}/?page=<ceil(rank / 50)>`.",
        responses={200: serializers.BotDetailSerializer, 404: NOT_FOUND},
        examples=[example("bot", {**BOT, "rank": 3})],
    ),
    create=extend_schema(
        summary="Upload a new bot (its version 1)",
        description=(
            "Multipart form: `name`, `game`, `description`, `file` (bot.py or a .zip with bot.py at its top level). "
            "Checked exactly as the site's upload form checks it; the new version is then validated by the league "
            "(poll `/api/versions/{id}/` until `status` is `active` or `failed`). Uploads are rate-limited."
        ),
        request={"multipart/form-data": form_request(NewBotForm, "NewBotUpload")},
        responses={
            201: serializers.NewBotCreatedSerializer,
            400: INVALID_UPLOAD,
            401: NOT_AUTHENTICATED,
            429: THROTTLED,
        },
        examples=[
            example(
                "created",
                {**BOT, "active_version": None, "version": {**VERSION, "number": 1, "status": "validating"}},
                status_codes=["201"],
            )
        ],
    ),
    retire=extend_schema(
        summary="Retire your bot",
        description=(
            "Takes the bot off the ladder: it stops playing ladder games (those not started are withdrawn), leaves "
            "the leaderboard and is left out of tournaments that start later. Its games stay, replayable. No body."
        ),
        request=None,
        responses={200: serializers.BotSerializer, 401: NOT_AUTHENTICATED, 403: NOT_OWNER, 404: NOT_FOUND},
        examples=[example("retired", {**BOT, "on_ladder": False, "retired_at": WHEN})],
    ),
    unretire=extend_schema(
        summary="Bring your retired bot back to the ladder",
        description="It plays on the ladder again, unless the staff disabled it (`disabled_at`). No body.",
        request=None,
        responses={200: serializers.BotSerializer, 401: NOT_AUTHENTICATED, 403: NOT_OWNER, 404: NOT_FOUND},
        examples=[example("back", BOT)],
    ),
    partial_update=extend_schema(
        summary="Rename or describe your bot, or change its replay and analysis choices",
        description="`output_public`: everyone sees what it writes in each turn beside its replays (else you alone); "
        "`analyse_losses`: the house expert analyses every rated game it loses (within your daily analyses).",
        request=serializers.BotUpdateSerializer,
        responses={200: serializers.BotSerializer, 400: serializers.ErrorSerializer, 403: NOT_OWNER, 404: NOT_FOUND},
        examples=[
            OpenApiExample("rename", value={"name": "cautious-2"}, request_only=True),
            OpenApiExample("analyse losses", value={"analyse_losses": True}, request_only=True),
            example("renamed", {**BOT, "name": "cautious-2"}),
        ],
    ),
    versions=[
        extend_schema(
            methods=["GET"],
            summary="List a bot's versions, newest first",
            parameters=PAGING,
            responses={200: serializers.VersionSerializer(many=True), **LIST_ERRORS},
            examples=[example("versions", VERSION)],
        ),
        extend_schema(
            methods=["POST"],
            summary="Upload a new version of your bot",
            description="Multipart form with `file`; checked exactly as the site's form checks it. Rate-limited.",
            request={"multipart/form-data": form_request(NewVersionForm, "NewVersionUpload")},
            responses={
                201: serializers.VersionSerializer,
                400: INVALID_UPLOAD,
                401: NOT_AUTHENTICATED,
                403: NOT_OWNER,
                404: NOT_FOUND,
                429: THROTTLED,
            },
            examples=[
                example("uploaded", {**VERSION, "status": "validating", "validated_at": None}, status_codes=["201"])
            ],
        ),
    ],
    ratings=extend_schema(
        summary="A bot's ratings over time, per version",
        responses={200: serializers.VersionRatingsSerializer(many=True), 404: NOT_FOUND},
        examples=[
            example(
                "ratings",  # one row: spectacular shows it in a list
                {
                    "version": VERSION_REF,
                    "points": [{k: RATING[k] for k in ("elo", "low", "high", "games")} | {"at": WHEN}],
                },
            )
        ],
    ),
)

versions = extend_schema_view(
    retrieve=extend_schema(
        summary="A version",
        description="`failure_reason`, `stderr_tail` and `validation_match` are shown to the owner and staff only.",
        responses={200: serializers.VersionSerializer, 404: NOT_FOUND},
        examples=[example("failed version (seen by its owner)", VERSION)],
    ),
)
version_source = extend_schema(
    summary="Download a version's uploaded file (owner and staff)",
    description="A 404 for everyone else, as if the file did not exist.",
    responses={
        (200, "application/octet-stream"): OpenApiResponse(
            OpenApiTypes.BINARY,
            description="bot.py (text/x-python) or the .zip (application/zip), as uploaded.",
            examples=[example("bot.py", "def play(observation):\n    return []\n")],
        ),
        404: NOT_FOUND,
    },
)

tournaments = extend_schema_view(
    list=extend_schema(
        summary="List tournaments, newest first",
        parameters=PAGING,
        responses={200: serializers.TournamentSerializer(many=True), **LIST_ERRORS},
        examples=[example("tournaments", TOURNAMENT)],
    ),
    retrieve=extend_schema(
        summary="A tournament with its entries and progress",
        responses={200: serializers.TournamentDetailSerializer, 404: NOT_FOUND},
        examples=[
            example(
                "tournament",
                {
                    **TOURNAMENT,
                    "turn_seconds": 1.0,
                    "bank_seconds": 10.0,
                    "startup_seconds": 5.0,
                    "games_played": 10,
                    "games_planned": 10,
                    "entries": [{"bot": BOT_REF, "version": VERSION_REF}, {"bot": OTHER_ENTRY["bot"], "version": None}],
                },
            )
        ],
    ),
    standings=extend_schema(
        summary="A tournament's standings",
        responses={200: serializers.StandingSerializer(many=True), 404: NOT_FOUND},
        examples=[example("standings", STANDING)],  # one row: spectacular lists it
    ),
    crosstable=extend_schema(
        summary="A tournament's crosstable",
        responses={200: serializers.CrosstableSerializer, 404: NOT_FOUND},
        examples=[
            example(
                "crosstable",
                {
                    "rows": [
                        {
                            "bot": BOT_REF,
                            "version": VERSION_REF,
                            "results": [{"opponent": 40, "points": 6.0, "games": 10}],
                        }
                    ]
                },
            )
        ],
    ),
)

matches = extend_schema_view(
    list=extend_schema(
        summary="List matches, newest first",
        description="Filters: `kind`, `game`, `status`, `tournament`, `rated`, `bot`, `version`. Validation matches "
        "are listed only for the candidate's owner and staff.",
        parameters=PAGING,
        responses={200: serializers.MatchSerializer(many=True), **LIST_ERRORS},
        examples=[example("matches", MATCH)],
    ),
    retrieve=extend_schema(
        summary="A match with its entries and first games",
        description="Entries' `stderr_tail` for the bot's owner and staff; `error`, `claimed_by`, `attempts` "
        "for staff.",
        responses={200: serializers.MatchDetailSerializer, 404: NOT_FOUND},
        examples=[
            example(
                "match",
                {
                    **MATCH,
                    "turn_seconds": 1.0,
                    "bank_seconds": 10.0,
                    "startup_seconds": 5.0,
                    "games_shown": [GAME_SUMMARY],
                    "games_url": "/api/matches/1200/games/",
                },
            )
        ],
    ),
    games=extend_schema(
        summary="A match's games by index",
        parameters=PAGING,
        responses={200: serializers.GameSerializer(many=True), **LIST_ERRORS},
        examples=[example("games", GAME)],
    ),
)

games = extend_schema_view(
    retrieve=extend_schema(
        summary="A game with its seats",
        responses={200: serializers.GameSerializer, 404: NOT_FOUND},
        examples=[example("game", GAME)],
    ),
)
game_log = extend_schema(
    summary="Download a game's log",
    description="The stored log, replayed by the engine to the recorded result first (409 if it does not).",
    responses={
        200: OpenApiResponse(
            OpenApiTypes.OBJECT,
            description="The game log (schema: games/schemas in the repository).",
            examples=[example("log", {"game": "face-to-face", "seed": "ladder-1200:0", "start_seat": 0, "turns": []})],
        ),
        404: NOT_FOUND,
        409: error(409, "log_tampered", "game 5001: the stored log does not replay: ..."),
    },
)

leaderboards = extend_schema_view(
    list=extend_schema(
        summary="The games that have a leaderboard",
        description="Face to Face has an Elo ladder; the co-op games' leaderboards are their current season's "
        "(`url` is null before the first season).",
        responses={
            200: inline_serializer(
                "Leaderboard",
                {"game": fields.CharField(), "name": fields.CharField(), "url": fields.CharField(allow_null=True)},
                many=True,
            )
        },
        examples=[
            example(
                "leaderboards",  # one row: spectacular lists it
                {"game": "face-to-face", "name": "The Game: Face to Face", "url": "/api/leaderboards/face-to-face/"},
            )
        ],
    ),
    retrieve=extend_schema(
        summary="A game's leaderboard",
        description="Rated bots by Elo, then unrated bots without a rank. A rank is 1 + the rated bots with a "
        "higher Elo, so tied bots share one, on every page. `rating.provisional` marks a rating on too few games or "
        "with too wide an interval; `separated` is false where a bot's 95% interval overlaps the one ranked above "
        "it (their order is not settled). Face to Face only: a co-op game answers 404 with the address of its "
        "current season's leaderboard.",
        parameters=PAGING,
        responses={
            200: inline_serializer(
                "LeaderboardPage",
                {
                    "count": fields.IntegerField(),
                    "next": fields.URLField(allow_null=True),
                    "previous": fields.URLField(allow_null=True),
                    "results": serializers.LadderRowSerializer(many=True),
                },
            ),
            404: NOT_FOUND,
        },
        examples=[
            example(
                "face-to-face",
                page({"rank": 1, "bot": BOT_REF, "version": VERSION_REF, "rating": RATING, "separated": None}),
            )
        ],
    ),
)
