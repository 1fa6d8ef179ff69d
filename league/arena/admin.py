"""The Django admin: where admins create, schedule and start tournaments and watch matches."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Case, F, QuerySet, Sum, When
from django.http import HttpRequest
from django.utils.html import format_html

from league.arena import coop_admin, tournaments  # noqa: F401  (coop_admin registers the seasons' admin)
from league.arena.models import Bot, BotVersion, Game, Match, MatchEntry, Rating, Tournament, TournamentEntry


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    fields = ("number", "status", "kind", "filename", "size", "sha256", "created", "failure_reason")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Bot | None = None) -> bool:
        return False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "game", "house_ref", "created")
    list_filter = ("game",)
    search_fields = ("name", "owner__username")
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "kind", "size", "created", "validated_at")
    list_filter = ("status", "kind", "bot__game")
    search_fields = ("bot__name", "bot__owner__username", "sha256")
    readonly_fields = ("bot", "number", "sha256", "kind", "filename", "size", "created", "validated_at")


class TournamentEntryInline(admin.TabularInline):
    model = TournamentEntry
    fields = ("bot", "version")
    readonly_fields = ("version",)
    autocomplete_fields = ("bot",)
    extra = 3


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    # Few, short columns: the list fits a 1280 px screen beside the admin's filter sidebar.
    list_display = ("name", "status", "format", "scheduled_at", "progress", "page")
    list_filter = ("status", "game", "format")
    readonly_fields = ("status", "started_at", "finished_at", "created")
    fieldsets = (
        (None, {"fields": ("name", "game", "format", "games_per_pairing", "duplicate", "scheduled_at")}),
        ("Time control (seconds)", {"fields": ("turn_seconds", "bank_seconds", "startup_seconds")}),
        ("State", {"fields": ("status", "created", "started_at", "finished_at")}),
    )
    inlines = [TournamentEntryInline]
    actions = ["start_now"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        done = When(matches__status=Match.Status.DONE, then=F("matches__games"))
        return (
            super()
            .get_queryset(request)
            .annotate(planned=Sum("matches__games"), played=Sum(Case(done, default=F("matches__games_done"))))
        )

    @admin.display(description="games played")
    def progress(self, tournament: Tournament) -> str:
        planned = getattr(tournament, "planned", None)
        return f"{tournament.played} / {planned}" if planned else "–"

    @admin.display(description="page")
    def page(self, tournament: Tournament) -> str:
        return format_html('<a href="{}">standings</a>', tournament.get_absolute_url())

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> tuple:
        if obj is not None and obj.status != Tournament.Status.DRAFT:
            # A started tournament is a record of what was played: only its name may change.
            return tuple(f for fs in self.fieldsets for f in fs[1]["fields"] if f != "name")
        return self.readonly_fields

    @admin.action(description="Start the selected tournaments now")
    def start_now(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            try:
                started = tournaments.start(tournament.pk)
            except tournaments.TournamentError as error:
                self.message_user(request, str(error), messages.ERROR)
                continue
            if started:
                self.message_user(request, f"{tournament}: {len(started)} matches queued.", messages.SUCCESS)
            else:
                self.message_user(request, f"{tournament} had already started.", messages.WARNING)


class MatchEntryInline(admin.TabularInline):
    model = MatchEntry
    fields = ("index", "version", "stderr_tail")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("pk", "kind", "tournament", "status", "games_played", "attempts")
    list_filter = ("status", "kind", "game")
    readonly_fields = (
        "status",
        "claim_token",
        "claimed_by",
        "attempts",
        "games_done",
        "error",
        "queued_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
    )
    inlines = [MatchEntryInline]

    @admin.display(description="games")
    def games_played(self, match: Match) -> str:
        return f"{match.games if match.status == Match.Status.DONE else match.games_done} / {match.games}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("pk", "match", "index", "termination", "winner_seat", "turns", "played_at")
    list_filter = ("game", "termination")
    exclude = ("log_zlib",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("version", "game", "elo", "low", "high", "games", "wins", "losses", "last_played")
    list_filter = ("game",)
    list_select_related = ("version__bot__owner",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Rating | None = None) -> bool:
        return False
