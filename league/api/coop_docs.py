"""The OpenAPI description of the co-op endpoints (league/api/coop.py): summaries, parameters, errors, examples."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers as fields

from league.api import coop_serializers
from league.api.docs import BOT_REF, LIST_ERRORS, PAGING, VERSION_REF, WHEN, error, example, page

SEASON_ID = 4
SEED = "3f9a1c0d5e7b2a64"
SEASON = {
    "id": SEASON_ID,
    "game": "the-game",
    "number": 2,
    "seed": SEED,
    "deals": 1000,
    "chunk": 100,
    "team_sizes": [1, 2, 3, 4, 5],
    "current": True,
    "started_at": WHEN,
    "seed_rule": coop_serializers.SEED_RULE,
    "deals_url": f"/api/seasons/{SEASON_ID}/deals/",
    "results_url": f"/api/seasons/{SEASON_ID}/results/",
    "leaderboard_url": f"/api/seasons/{SEASON_ID}/leaderboard/",
    "seeds_url": f"/seasons/{SEASON_ID}/seeds.txt",
}
COOP_BOT = {**BOT_REF, "game": "the-game"}
HISTOGRAM = [312, 0, 41, 37, 55, 60, 48, 52, 39, 41, 30] + [25] * 10 + [10] * 20 + [1] * 12 + [0] * 46
RESULT = {
    "players": 1,
    "bot": COOP_BOT,
    "version": VERSION_REF,
    "on_ladder": True,
    "deals": 1000,
    "wins": 312,
    "win_rate": 0.312,
    "win_interval": {"low": 0.2838, "high": 0.3417},
    "mean_cards_left": 8.4,
    "median_cards_left": 5.0,
    "histogram": HISTOGRAM,
    "rating": {"elo": 1688.2, "low": 1661.0, "high": 1715.4, "comparisons": 3000, "wins": 1710, "losses": 902}
    | {"draws": 388},
}
DEAL_RESULT = {
    "players": 1,
    "bot": COOP_BOT,
    "version": VERSION_REF,
    "on_ladder": True,
    "cards_left": 3,
    "game": 81234,
    "game_url": "/api/games/81234/",
    "log_url": "/api/games/81234/log",
    "replay_url": "/games/81234/",
}

PLAYERS = OpenApiParameter(
    "players", int, enum=[1, 2, 3, 4, 5], description="The team size: 1 alone (the default), N for N copies."
)
PLAYERS_FILTER = OpenApiParameter("players", int, enum=[1, 2, 3, 4, 5], description="One team size only.")
# An id: django-filter refuses numbers above 1e50 (400), so the schema bounds them as the database does.
ID = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
BOT_FILTER = OpenApiParameter("bot", ID, description="Results of this bot's versions.")
VERSION_FILTER = OpenApiParameter("version", ID, description="Results of this version.")
DEAL = OpenApiParameter("deal", int, OpenApiParameter.PATH, description="The deal's number in the season, from 0.")
NO_SEASON = error(404, "not_found", "No Season matches the given query.")
BAD_TEAM = error(400, "invalid", "players: a team size from 1 to 5, not '9'")
PAGE_ERRORS = {**LIST_ERRORS, 404: NO_SEASON}


def paginated(name: str, rows: fields.Serializer) -> fields.Serializer:
    return inline_serializer(
        name,
        {
            "count": fields.IntegerField(),
            "next": fields.URLField(allow_null=True),
            "previous": fields.URLField(allow_null=True),
            "results": rows,
        },
    )


seasons = extend_schema_view(
    list=extend_schema(
        summary="List the co-op challenge seasons, newest first",
        description="Filters: `game` (the-game or extreme), `current` (true: each game's current season).",
        parameters=PAGING,
        responses={200: coop_serializers.SeasonSerializer(many=True), **LIST_ERRORS},
        examples=[example("seasons", SEASON)],
    ),
    retrieve=extend_schema(
        summary="A co-op season: its seed, deals and team sizes",
        responses={200: coop_serializers.SeasonSerializer, 404: NO_SEASON},
        examples=[example("season", SEASON)],
    ),
    deals=extend_schema(
        summary="A season's deals by number, with their seeds",
        description="The published deals every ladder bot plays; deal d is dealt from the seed `<seed>:<d>`.",
        parameters=PAGING,
        responses={200: coop_serializers.DealSerializer(many=True), **PAGE_ERRORS},
        examples=[example("deals", {"deal": 7, "seed": f"{SEED}:7", "url": f"/api/seasons/{SEASON_ID}/deals/7/"})],
    ),
    deal=extend_schema(
        summary="Every version's result on one deal, with links to the games",
        description="For one seed, every version's cards left side by side (fewest first within each team size), "
        "so an author sees where a stronger bot did better on the same cards. Filter: `players`.",
        parameters=[DEAL, PLAYERS_FILTER, *PAGING],
        responses={200: coop_serializers.DealResultsPageSerializer, **PAGE_ERRORS},
        examples=[
            example(
                "deal",
                {"season": SEASON_ID, "deal": 7, "seed": f"{SEED}:7"}
                | page(DEAL_RESULT, {**DEAL_RESULT, "bot": {**COOP_BOT, "id": 12, "name": "expert"}, "cards_left": 9}),
            )
        ],
    ),
    results=extend_schema(
        summary="Every version's results on a season, per team size",
        description="Win rate with its 95% interval, mean and median cards left, histogram, and the Elo fitted "
        "from duplicate comparisons; best rated first within each team size, unrated last. Filters: `players`, "
        "`bot` (a bot's versions), `version`.",
        parameters=[PLAYERS_FILTER, BOT_FILTER, VERSION_FILTER, *PAGING],
        responses={200: coop_serializers.SeasonResultSerializer(many=True), **PAGE_ERRORS},
        examples=[example("results", RESULT)],
    ),
    leaderboard=extend_schema(
        summary="A season's co-op leaderboard for one team size",
        description="As on the site: each ladder bot's ladder version, rated bots by Elo (rank kept across pages), "
        "then unrated bots without a rank. A team size the season does not play is a 404.",
        parameters=[PLAYERS, *PAGING],
        responses={
            200: paginated("CoopLeaderboardPage", coop_serializers.LeaderboardRowSerializer(many=True)),
            400: BAD_TEAM,
            404: NO_SEASON,
        },
        examples=[example("solo", page({"rank": 1, **RESULT}))],
    ),
)
