"""How the API shows the league's objects.

Private fields are declared `required=False` (so the schema marks them optional) and dropped by
`PrivateFieldsMixin` unless the request's user owns the bot or is staff.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from rest_framework import serializers

from league.arena.models import BOT_NAME_RULE, Bot, BotVersion, Game, GameSeat, Match, MatchEntry, Rating, Tournament
from league.arena.web.decorators import sees_private


class PrivateFieldsMixin:
    """Drops `Meta.private_fields` from the output unless `owner_id(instance)` is the user's, or the user is staff."""

    context: dict

    def owner_id(self, instance: Any) -> int | None:
        raise NotImplementedError

    def to_representation(self, instance: Any) -> dict:
        data = super().to_representation(instance)  # type: ignore[misc]
        request = self.context.get("request")
        if not sees_private(getattr(request, "user", None), self.owner_id(instance)):
            for name in self.Meta.private_fields:  # type: ignore[attr-defined]
                data.pop(name, None)
        return data


class RatingSerializer(serializers.ModelSerializer):
    provisional = serializers.BooleanField(
        read_only=True,
        help_text="Fewer rated games than ARENA_LADDER_PROVISIONAL_GAMES or a 95% interval wider than "
        "± ARENA_LADDER_PROVISIONAL_MARGIN Elo: its place is not to be trusted yet.",
    )

    class Meta:
        model = Rating
        fields = ["elo", "low", "high", "games", "wins", "losses", "last_played", "provisional"]


class BotRefSerializer(serializers.ModelSerializer):
    """A bot named in another object: enough to show it and to fetch it."""

    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "name", "owner", "game"]


class VersionRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = BotVersion
        fields = ["id", "number", "sha256", "status"]


class VersionSerializer(PrivateFieldsMixin, serializers.ModelSerializer):
    """A version; querysets annotate `validation_match_id` (see views.VersionQueries)."""

    bot = serializers.PrimaryKeyRelatedField(read_only=True)
    rating = RatingSerializer(read_only=True, allow_null=True)
    failure_reason = serializers.CharField(required=False, help_text="Why validation failed (owner and staff only).")
    stderr_tail = serializers.CharField(
        required=False, help_text="The end of the bot's stderr in its validation games (owner and staff only)."
    )
    validation_match = serializers.IntegerField(
        source="validation_match_id",
        required=False,
        allow_null=True,
        help_text="The id of the match that validated it (owner and staff only).",
    )

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "number",
            "sha256",
            "kind",
            "filename",
            "size",
            "status",
            "created",
            "validated_at",
            "rating",
            "failure_reason",
            "stderr_tail",
            "validation_match",
        ]
        private_fields = ["failure_reason", "stderr_tail", "validation_match"]

    def owner_id(self, instance: BotVersion) -> int:
        return instance.bot.owner_id


class ActiveVersionSerializer(serializers.ModelSerializer):
    rating = RatingSerializer(read_only=True, allow_null=True)

    class Meta:
        model = BotVersion
        fields = ["id", "number", "sha256", "created", "rating"]


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    active_version = ActiveVersionSerializer(
        read_only=True, allow_null=True, help_text="The newest active version: the one that plays while on the ladder."
    )
    on_ladder = serializers.BooleanField(
        source="is_on_ladder",
        read_only=True,
        help_text="It plays on the ladder: it has an active version and is neither retired nor disabled.",
    )
    retired_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When its owner retired it (POST .../retire/); null if not retired."
    )
    disabled_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When the staff disabled it; null if not disabled."
    )

    class Meta:
        model = Bot
        fields = [
            *("id", "name", "owner", "game", "description", "house_ref", "created", "active_version"),
            *("on_ladder", "retired_at", "disabled_at", "output_public", "analyse_losses"),
        ]
        read_only_fields = ["output_public", "analyse_losses"]


class BotDetailSerializer(BotSerializer):
    """One bot, read alone: also its place on its game's ladder (`views.ladder_rank` sets `ladder_rank`)."""

    rank = serializers.IntegerField(
        source="ladder_rank",
        read_only=True,
        allow_null=True,
        help_text="Its rank on its game's leaderboard (1 + the ladder bots rated higher, so tied bots share one): "
        "it is on page ceil(rank / page_size) of /api/leaderboards/{game}/. Null while it is off the ladder or not "
        "rated yet, and for a co-op game (ranked per season).",
    )

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "rank"]


class BotUpdateSerializer(serializers.ModelSerializer):
    """PATCH by the owner: a new name (the rules of a new bot's name, unique per owner) or description, what it
    writes in each turn public or not (`output_public`), its lost rated games analysed or not (`analyse_losses`).

    Parses the body only: `league.arena.uploads.changes.edit` checks and saves, as it does for the site's form.
    """

    class Meta:
        model = Bot
        fields = ["name", "description", "output_public", "analyse_losses"]
        extra_kwargs = {"name": {"validators": [BOT_NAME_RULE]}}


class NewBotCreatedSerializer(BotSerializer):
    version = VersionSerializer(read_only=True, help_text="Version 1, now being validated.")

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "version"]


class UserSerializer(serializers.ModelSerializer):
    class Meta:
        model = get_user_model()
        fields = ["username", "date_joined"]


class UserProfileSerializer(UserSerializer):
    bot_count = serializers.IntegerField(read_only=True)
    bots = BotSerializer(many=True, read_only=True, source="shown_bots", help_text="Their first bots by name.")

    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "bot_count", "bots"]


class EntrySerializer(PrivateFieldsMixin, serializers.ModelSerializer):
    bot = BotRefSerializer(source="version.bot", read_only=True)
    version = VersionRefSerializer(read_only=True)
    stderr_tail = serializers.CharField(required=False, help_text="The bot's stderr tail (its owner and staff only).")

    class Meta:
        model = MatchEntry
        fields = ["index", "bot", "version", "games", "wins", "losses", "draws", "points", "stderr_tail"]
        private_fields = ["stderr_tail"]

    def owner_id(self, instance: MatchEntry) -> int:
        return instance.version.bot.owner_id


class PublicEntrySerializer(EntrySerializer):
    class Meta(EntrySerializer.Meta):
        fields = [name for name in EntrySerializer.Meta.fields if name != "stderr_tail"]
        private_fields: list[str] = []


class MatchSerializer(serializers.ModelSerializer):
    entries = PublicEntrySerializer(many=True, read_only=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "kind",
            "game",
            "tournament",
            "status",
            "games",
            "games_done",
            "rated",
            "seed",
            "duplicate",
            "created",
            "started_at",
            "finished_at",
            "entries",
        ]


class SeatSerializer(serializers.ModelSerializer):
    bot = BotRefSerializer(source="version.bot", read_only=True)
    version = VersionRefSerializer(read_only=True)

    class Meta:
        model = GameSeat
        fields = ["seat", "bot", "version", "points"]


class GameSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Game
        fields = ["id", "index", "seed", "start_seat", "termination", "winner_seat", "fault_seat", "score", "turns"]


class GameSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    log_url = serializers.SerializerMethodField(help_text="The verified log of the game (JSON).")

    class Meta:
        model = Game
        fields = [
            "id",
            "match",
            "index",
            "game",
            "seed",
            "start_seat",
            "termination",
            "winner_seat",
            "fault_seat",
            "score",
            "detail",
            "turns",
            "played_at",
            "seats",
            "log_url",
        ]

    def get_log_url(self, game: Game) -> str:
        return f"/api/games/{game.pk}/log"


class MatchDetailSerializer(PrivateFieldsMixin, MatchSerializer):
    """A match with its entries (stderr for their owners) and its first games; staff also see the run's state."""

    entries = EntrySerializer(many=True, read_only=True)
    games_shown = GameSummarySerializer(many=True, read_only=True, help_text="The first games by index.")
    games_url = serializers.SerializerMethodField(help_text="All its games, paginated.")
    error = serializers.CharField(required=False, help_text="Why the run failed (staff only).")
    claimed_by = serializers.CharField(required=False, help_text="The worker that runs it (staff only).")
    attempts = serializers.IntegerField(required=False, help_text="Runs started (staff only).")

    class Meta(MatchSerializer.Meta):
        fields = [
            *MatchSerializer.Meta.fields,
            "turn_seconds",
            "bank_seconds",
            "startup_seconds",
            "games_shown",
            "games_url",
            "error",
            "claimed_by",
            "attempts",
        ]
        private_fields = ["error", "claimed_by", "attempts"]

    def owner_id(self, instance: Match) -> None:
        return None  # staff only

    def get_games_url(self, match: Match) -> str:
        return f"/api/matches/{match.pk}/games/"


class TournamentSerializer(serializers.ModelSerializer):
    entry_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "game",
            "format",
            "games_per_pairing",
            "duplicate",
            "status",
            "scheduled_at",
            "created",
            "started_at",
            "finished_at",
            "entry_count",
        ]


class TournamentEntrySerializer(serializers.Serializer):
    bot = BotRefSerializer(read_only=True)
    version = VersionRefSerializer(
        read_only=True, allow_null=True, help_text="Frozen when the tournament starts; null if it had none then."
    )


class TournamentDetailSerializer(TournamentSerializer):
    entries = TournamentEntrySerializer(many=True, read_only=True, source="entries_shown")
    games_played = serializers.IntegerField(read_only=True)
    games_planned = serializers.IntegerField(read_only=True)

    class Meta(TournamentSerializer.Meta):
        fields = [
            *TournamentSerializer.Meta.fields,
            "turn_seconds",
            "bank_seconds",
            "startup_seconds",
            "games_played",
            "games_planned",
            "entries",
        ]


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    bot = BotRefSerializer()
    version = VersionRefSerializer()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()
    points = serializers.FloatField()
    score_percent = serializers.FloatField(allow_null=True)


class CrossCellSerializer(serializers.Serializer):
    opponent = serializers.IntegerField(help_text="The opponent's version id.")
    points = serializers.FloatField()
    games = serializers.IntegerField()


class CrossRowSerializer(serializers.Serializer):
    bot = BotRefSerializer()
    version = VersionRefSerializer()
    results = CrossCellSerializer(many=True, help_text="Points won against each opponent, in standings order.")


class CrosstableSerializer(serializers.Serializer):
    rows = CrossRowSerializer(many=True)


class LadderRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        allow_null=True, help_text="1 + the rated bots with a higher Elo (tied bots share a rank); null until rated."
    )
    bot = BotRefSerializer()
    version = VersionRefSerializer()
    rating = RatingSerializer(allow_null=True)
    separated = serializers.BooleanField(
        allow_null=True,
        help_text="Whether its 95% interval is clear of the bot's ranked above it; false: not separated (their "
        "order is not settled); null for the first rated bot and for unrated bots.",
    )


class RatingPointSerializer(serializers.Serializer):
    at = serializers.DateTimeField(allow_null=True, help_text="When the rating was fitted (or last played).")
    elo = serializers.FloatField()
    low = serializers.FloatField()
    high = serializers.FloatField()
    games = serializers.IntegerField()


class VersionRatingsSerializer(serializers.Serializer):
    version = VersionRefSerializer()
    points = RatingPointSerializer(many=True, help_text="Ratings over time, oldest first.")


class ErrorDetailSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField(help_text="Machine-readable: invalid, not_found, not_authenticated, throttled, ...")
    message = serializers.CharField(help_text="For people: what is wrong.")


# "fields" cannot be a class attribute of a serializer (it is the serializer's own property).
ErrorDetailSerializer._declared_fields["fields"] = serializers.DictField(
    child=serializers.ListField(child=serializers.CharField()),
    required=False,
    help_text="The messages for each invalid input field.",
)


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()
