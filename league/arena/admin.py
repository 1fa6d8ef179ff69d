"""The Django admin, branded as the site: bots, versions (validate one again), matches, games and ratings.

Tournaments have their own admin module (tournament_admin), the co-op seasons theirs (coop_admin)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from league.arena import queue
from league.arena.accounts import admin as account_admin  # noqa: F401  (they register admins)
from league.arena.coop import admin as coop_admin  # noqa: F401  (they register admins)
from league.arena.lib.admin_times import ZonedTimes
from league.arena.models import Bot, BotVersion, Game, Match, MatchEntry, Rating
from league.arena.notifications import admin as notification_admin  # noqa: F401  (they register admins)
from league.arena.tournaments import admin as tournament_admin  # noqa: F401  (they register admins)
from league.arena.uploads import changes as bot_changes  # noqa: F401  (they register admins)
from league.arena.uploads import versions

admin.site.site_header = f"{settings.SITE_NAME} admin"
admin.site.site_title = f"{settings.SITE_NAME} admin"
admin.site.index_title = "Run the league"


class LadderFilter(admin.SimpleListFilter):
    title = "ladder"
    parameter_name = "ladder"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("on", "on the ladder"), ("retired", "retired"), ("disabled", "disabled")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Bot]) -> QuerySet[Bot]:
        if self.value() == "on":
            return queryset.on_ladder()
        if self.value() == "retired":
            return queryset.filter(retired_at__isnull=False)
        if self.value() == "disabled":
            return queryset.filter(disabled_at__isnull=False)
        return queryset


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
class BotAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("name", "owner", "game", "house_ref", "ladder", "created")
    list_filter = ("game", LadderFilter)
    list_select_related = ("owner",)
    search_fields = ("name", "owner__username")
    # Taken off and put back through the actions, which also withdraw the bot's queued ladder matches.
    readonly_fields = ("retired_at", "disabled_at")
    inlines = [BotVersionInline]
    actions = ["disable_bots", "enable_bots"]

    @admin.display(description="ladder")
    def ladder(self, bot: Bot) -> str:
        """Whether the bot plays on the ladder, or what keeps it off."""
        if bot.disabled_at:
            return f"disabled {bot.disabled_at:%Y-%m-%d}"
        if bot.retired_at:
            return f"retired {bot.retired_at:%Y-%m-%d}"
        if not (bot.owner.is_active or bot.house_ref):
            return "owner disabled"
        return "on" if bot.active_version_id else "no active version"

    @admin.action(description="Disable the selected bots (they leave the ladder; their games stay)")
    def disable_bots(self, request: HttpRequest, queryset: QuerySet[Bot]) -> None:
        count = bot_changes.disable(queryset)
        self.message_user(request, f"{count} bot{'s' if count != 1 else ''} disabled.", messages.SUCCESS)

    @admin.action(description="Enable the selected bots again")
    def enable_bots(self, request: HttpRequest, queryset: QuerySet[Bot]) -> None:
        count = bot_changes.enable(queryset)
        self.message_user(request, f"{count} bot{'s' if count != 1 else ''} enabled.", messages.SUCCESS)

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Bot], search_term: str) -> tuple:
        # The tournament entry picker (an autocomplete) offers only bots on the ladder: the others would be
        # left out when the tournament starts.
        if request.GET.get("model_name") == "tournamententry":
            queryset = queryset.on_ladder()
        return super().get_search_results(request, queryset, search_term)


@admin.register(BotVersion)
class BotVersionAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("__str__", "status", "kind", "size", "created", "validated_at")
    list_filter = ("status", "kind", "bot__game")
    search_fields = ("bot__name", "bot__owner__username", "sha256")
    readonly_fields = ("bot", "number", "sha256", "kind", "filename", "size", "created", "validated_at")
    actions = ["revalidate"]

    @admin.action(description="Validate the selected failed versions again")
    def revalidate(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        for version in queryset.select_related("bot__owner"):
            try:
                versions.revalidate(version, by_staff=True)
            except versions.NotAllowed as error:
                self.message_user(request, f"Not validated again: {error}.", messages.ERROR)
            else:
                self.message_user(request, f"Validating again: {version}.", messages.SUCCESS)


class MatchEntryInline(admin.TabularInline):
    model = MatchEntry
    fields = ("index", "version", "stderr_tail")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("pk", "kind", "tournament", "status", "games_played", "attempts", "error")
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
    actions = ["play_again"]

    @admin.action(description="Play the selected failed ladder matches again")
    def play_again(self, request: HttpRequest, queryset: QuerySet) -> None:
        """A failed ladder match (not a tournament's, validation's or scrim's: those were already counted as over by
        whoever followed them) queued afresh, its attempts and failures counted from zero."""
        ids = list(
            queryset.filter(status=Match.Status.FAILED, kind=Match.Kind.LADDER, tournament__isnull=True).values_list(
                "pk", flat=True
            )
        )
        with transaction.atomic():
            again = Match.objects.filter(pk__in=ids, status=Match.Status.FAILED).update(
                status=Match.Status.QUEUED,
                attempts=0,
                failures=0,
                error="",
                claim_token=None,
                claimed_by="",
                games_done=0,
                queued_at=timezone.now(),
                started_at=None,
                heartbeat_at=None,
                finished_at=None,
            )
            for pk in ids:
                queue.play(pk, Match.Kind.LADDER)
        skipped = queryset.count() - again
        note = f"; {skipped} left as they were (only failed ladder matches are played again)" if skipped else ""
        messages.success(request, f"{again} match{'es' if again != 1 else ''} queued to play again{note}.")

    @admin.display(description="games")
    def games_played(self, match: Match) -> str:
        return f"{match.games if match.status == Match.Status.DONE else match.games_done} / {match.games}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Game)
class GameAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("pk", "match", "index", "termination", "winner_seat", "turns", "played_at")
    list_filter = ("game", "termination")
    exclude = ("log_zlib",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("version", "game", "elo", "low", "high", "games", "wins", "losses", "last_played")
    list_filter = ("game",)
    list_select_related = ("version__bot__owner",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Rating | None = None) -> bool:
        return False
