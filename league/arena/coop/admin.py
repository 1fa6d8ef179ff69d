"""The admin of the co-op challenge seasons: start a season (fresh deals), see the published ones."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from league.arena.coop import challenges
from league.arena.lib.admin_times import ZonedTimes
from league.arena.models import Season


@admin.register(Season)
class SeasonAdmin(ZonedTimes, admin.ModelAdmin):
    list_display = ("__str__", "game", "number", "deals", "chunk", "team_sizes", "current", "started_at", "page")
    list_filter = ("game", "current")
    actions = ["start_new_season"]

    def get_fields(self, request: HttpRequest, obj: Season | None = None) -> list[str]:
        if obj is None:
            return ["game", "deals", "chunk", "team_sizes", "seed"]
        return ["game", "number", "seed", "deals", "chunk", "team_sizes", "current", "started_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Season | None = None) -> list[str]:
        # A published season's deals never change: start a new season instead.
        return [] if obj is None else self.get_fields(request, obj)

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        return {"team_sizes": list(challenges.settings.ARENA_COOP_TEAM_SIZES)}

    def get_form(self, request: HttpRequest, obj: Season | None = None, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, **kwargs)
        if obj is None:
            form.base_fields["seed"].required = False
            form.base_fields["seed"].help_text = "Leave empty for a fresh random seed."
        return form

    def save_model(self, request: HttpRequest, obj: Season, form: Any, change: bool) -> None:
        if change:
            return
        challenges.open_season(obj)

    @admin.display(description="page")
    def page(self, obj: Season) -> str:
        return format_html('<a href="{}">view</a>', obj.get_absolute_url())

    @admin.action(description="Start a new season (fresh deals) of the selected seasons' games")
    def start_new_season(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        for game in sorted(set(queryset.values_list("game", flat=True))):
            latest = Season.objects.filter(game=game).order_by("-number").first()
            season = challenges.start_season(game, latest.deals, latest.chunk, latest.team_sizes)
            self.message_user(request, f"Started {season} with {season.deals} fresh deals.", messages.SUCCESS)
