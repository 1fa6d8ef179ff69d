"""How the API shows the co-op challenge ladders: seasons, their deals, each deal's results and each version's
results on a season (the figures of the site's co-op leaderboards)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from league.api.serializers import BotRefSerializer, VersionRefSerializer
from league.arena.models import COOP_GAMES, GAME_NAMES, Season

COOP_GAME_CHOICES = [(game, GAME_NAMES[game]) for game in COOP_GAMES]
SEED_RULE = "deal d is dealt from the seed '<seed>:<d>'"


@extend_schema_field({"type": "array", "items": {"type": "integer", "minimum": 0}})
class HistogramField(serializers.ListField):
    """99 counts, stored as integers: passed through as they are (a list of 99 child fields per row cost most of
    a leaderboard page's time)."""

    def to_representation(self, data: Any) -> list[int]:
        return list(data)


class SeasonSerializer(serializers.ModelSerializer):
    team_sizes = serializers.ListField(child=serializers.IntegerField(), help_text="The ladders' team sizes.")
    seed_rule = serializers.SerializerMethodField(help_text="How each deal's seed follows from the season's seed.")
    deals_url = serializers.SerializerMethodField(help_text="The season's deals with their seeds, paginated.")
    results_url = serializers.SerializerMethodField(help_text="Every version's results on the season.")
    leaderboard_url = serializers.SerializerMethodField(help_text="The ladder of solo play; ?players=N for teams.")
    seeds_url = serializers.SerializerMethodField(help_text="The whole seed list as plain text, one per line.")

    class Meta:
        model = Season
        fields = [
            "id",
            "game",
            "number",
            "seed",
            "deals",
            "chunk",
            "team_sizes",
            "current",
            "started_at",
            "seed_rule",
            "deals_url",
            "results_url",
            "leaderboard_url",
            "seeds_url",
        ]

    def get_seed_rule(self, season: Season) -> str:
        return SEED_RULE

    def get_deals_url(self, season: Season) -> str:
        return f"/api/seasons/{season.pk}/deals/"

    def get_results_url(self, season: Season) -> str:
        return f"/api/seasons/{season.pk}/results/"

    def get_leaderboard_url(self, season: Season) -> str:
        return f"/api/seasons/{season.pk}/leaderboard/"

    def get_seeds_url(self, season: Season) -> str:
        return f"/seasons/{season.pk}/seeds.txt"


class DealSerializer(serializers.Serializer):
    deal = serializers.IntegerField(help_text="The deal's number in the season, from 0.")
    seed = serializers.CharField(help_text="The seed it is dealt from.")
    url = serializers.CharField(help_text="Every version's result on this deal.")


class DealResultSerializer(serializers.Serializer):
    players = serializers.IntegerField(help_text="Seats in the game: 1 alone, N for a self-play team of N copies.")
    bot = BotRefSerializer()
    version = VersionRefSerializer()
    on_ladder = serializers.BooleanField(help_text="Whether this version is its bot's ladder version now.")
    cards_left = serializers.IntegerField(help_text="Cards not placed at the end (0: the deal was won).")
    game = serializers.IntegerField(help_text="The game's id.")
    game_url = serializers.CharField()
    log_url = serializers.CharField(help_text="The game's verified log (JSON).")
    replay_url = serializers.CharField(help_text="The replay page on the site.")


class DealResultsPageSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    deal = serializers.IntegerField()
    seed = serializers.CharField()
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = DealResultSerializer(many=True, help_text="Best first (fewest cards left) within each team size.")


class IntervalSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()


class CoopRatingSerializer(serializers.Serializer):
    elo = serializers.FloatField()
    low = serializers.FloatField(help_text="The 95% interval's lower end.")
    high = serializers.FloatField()
    comparisons = serializers.IntegerField(help_text="Shared deals compared with the other versions.")
    wins = serializers.IntegerField(help_text="Comparisons with fewer cards left than the other version.")
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()


class SeasonResultSerializer(serializers.Serializer):
    """One version's results on one of a season's ladders (a team size)."""

    players = serializers.IntegerField(help_text="The team size: 1 alone, N for a self-play team of N copies.")
    bot = BotRefSerializer()
    version = VersionRefSerializer()
    on_ladder = serializers.BooleanField(help_text="Whether this version is its bot's ladder version now.")
    deals = serializers.IntegerField(help_text="Deals played out of the season's.")
    wins = serializers.IntegerField(help_text="Deals won (no card left).")
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / deals.")
    win_interval = IntervalSerializer(help_text="The win rate's 95% Wilson interval.")
    mean_cards_left = serializers.FloatField(allow_null=True)
    median_cards_left = serializers.FloatField(allow_null=True)
    histogram = HistogramField(help_text="histogram[n]: deals that ended with n cards left (n = 0..98).")
    rating = CoopRatingSerializer(allow_null=True, help_text="Elo from duplicate comparisons; null until rated.")


class LeaderboardRowSerializer(SeasonResultSerializer):
    rank = serializers.IntegerField(allow_null=True, help_text="Place among rated bots; null until rated.")
