"""The tournament admin: create a tournament for a game and format, then pick its entrants among that game's
active bots; start, cancel, fill or re-run it from the list's actions or the buttons on its own page.

The game is chosen before the entrants (without any script): the add form has no entrant picker, and once the
tournament is saved its picker lists only the bots of its game that have an active version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Case, F, QuerySet, Sum, When
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html

from league.arena.lib.admin_times import ZonedTimes
from league.arena.models import COMPETITIVE_GAMES, GAME_NAMES, Bot, Match, Tournament, TournamentEntry
from league.arena.tournaments import actions as tournament_actions
from league.arena.tournaments import ops as tournament_ops
from league.arena.tournaments import starting as tournaments


def _formats_of(game: str) -> list[Tournament.Format]:
    coop = game not in COMPETITIVE_GAMES
    return [choice for choice in Tournament.Format if (choice in Tournament.COOP_FORMATS) == coop]


# One select of game and format, grouped by game: a combination tournaments do not support cannot be chosen.
GAME_AND_FORMAT_CHOICES = [
    (name, [(f"{game}:{choice.value}", f"{name}: {choice.label}") for choice in _formats_of(game)])
    for game, name in GAME_NAMES.items()
    if _formats_of(game)
]


class TournamentForm(forms.ModelForm):
    game_and_format = forms.ChoiceField(
        label="Game and format",
        choices=GAME_AND_FORMAT_CHOICES,
        help_text="Face to Face is played as round robins; the co-op games as solo deals or pairs.",
    )

    class Meta:
        model = Tournament
        exclude = ("game", "format")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.status != Tournament.Status.DRAFT:
            del self.fields["game_and_format"]  # shown read-only: a started tournament keeps its game and format
        elif self.instance.pk:
            self.initial["game_and_format"] = f"{self.instance.game}:{self.instance.format}"

    def clean_game_and_format(self) -> tuple[str, str]:
        game, _, format_ = self.cleaned_data["game_and_format"].partition(":")
        if self.instance.pk and game != self.instance.game and self.instance.entries.exists():
            raise forms.ValidationError(
                f"The entrants play {GAME_NAMES[self.instance.game]}: remove them before changing the game."
            )
        return game, format_

    def _post_clean(self) -> None:
        if "game_and_format" in self.cleaned_data:
            self.instance.game, self.instance.format = self.cleaned_data["game_and_format"]
        super()._post_clean()


class EntrantChoice(forms.ModelChoiceField):
    def label_from_instance(self, bot: Bot) -> str:
        return f"{bot.full_name} (v{bot.active_version.number})"


class _DraftOnly:
    """Entrants change only while the tournament is a draft; after that they are a record."""

    def _draft(self, obj: Tournament | None) -> bool:
        return obj is not None and obj.status == Tournament.Status.DRAFT

    def has_change_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return self._draft(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return self._draft(obj) and super().has_delete_permission(request, obj)


class EntrantsInline(_DraftOnly, admin.TabularInline):
    """The entrants so far, read-only (each can be removed): no picker per row, however large the league."""

    model = TournamentEntry
    fields = ("bot", "version")
    readonly_fields = fields
    extra = 0
    verbose_name_plural = "entrants"

    def has_add_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return False


class NewEntrantsInline(_DraftOnly, admin.TabularInline):
    """Blank rows to enter more bots, each picked among the tournament's game's bots with an active version."""

    model = TournamentEntry
    fields = ("bot",)
    extra = 3
    verbose_name = "new entrant"
    verbose_name_plural = "add entrants"

    def get_queryset(self, request: HttpRequest) -> QuerySet[TournamentEntry]:
        return super().get_queryset(request).none()  # the entrants so far are listed above

    def has_add_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        return self._draft(obj) and super().has_add_permission(request, obj)

    def get_formset(self, request: HttpRequest, obj: Tournament | None = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        if obj is not None and "bot" in formset.form.base_fields:
            eligible = tournament_ops.eligible_bots(obj.game).exclude(pk__in=obj.entries.values("bot_id"))
            formset.form.base_fields["bot"] = EntrantChoice(
                queryset=eligible.select_related("owner", "active_version").order_by("owner__username", "name"),
                help_text=f"The bots of {GAME_NAMES[obj.game]} with an active version, not entered yet.",
            )
        return formset


SETTINGS = ("name", "game_and_format", "games_per_pairing", "duplicate", "scheduled_at", "registration_open")
TIME_CONTROL = ("turn_seconds", "bank_seconds", "startup_seconds")
STATE = ("status", "created", "started_at", "finished_at")


@admin.register(Tournament)
class TournamentAdmin(ZonedTimes, admin.ModelAdmin):
    form = TournamentForm
    # Few, short columns: the list fits a 1280 px screen beside the admin's filter sidebar.
    list_display = ("name", "status", "format", "scheduled_at", "progress", "page")
    list_filter = ("status", "game", "format")
    readonly_fields = STATE
    inlines = [EntrantsInline, NewEntrantsInline]
    actions = ["start_now", "add_all_active", "close_registration", "cancel", "rerun_failed"]
    change_form_template = "admin/arena/tournament/change_form.html"

    def get_fieldsets(self, request: HttpRequest, obj: Tournament | None = None) -> list:
        if obj is None:
            note = "Save first; then choose the entrants among the active bots of the chosen game."
            return [
                (None, {"fields": SETTINGS, "description": note}),
                ("Time control (seconds)", {"fields": TIME_CONTROL}),
            ]
        settings = SETTINGS if obj.status == Tournament.Status.DRAFT else ("name", "game", "format", *SETTINGS[2:])
        return [
            (None, {"fields": settings}),
            ("Time control (seconds)", {"fields": TIME_CONTROL}),
            ("State", {"fields": STATE}),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> tuple:
        if obj is not None and obj.status != Tournament.Status.DRAFT:
            # A started tournament is a record of what was played: only its name may change.
            return ("game", "format", *SETTINGS[2:], *TIME_CONTROL, *STATE)
        return self.readonly_fields

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        tournament = self.get_object(request, object_id)
        actions = tournament_actions.available_actions(tournament) if tournament else []
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "tournament_actions": actions}
        )

    def get_inline_instances(self, request: HttpRequest, obj: Tournament | None = None) -> list:
        return super().get_inline_instances(request, obj) if obj is not None else []

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

    def _each(
        self, request: HttpRequest, queryset: QuerySet[Tournament], operation: Callable[[int], Any], done: str
    ) -> None:
        """Run `operation` on each selected tournament, saying what happened (`done` formats its result)."""
        for tournament in queryset:
            try:
                result = operation(tournament.pk)
            except (tournaments.TournamentError, tournament_ops.NotAllowed) as error:
                self.message_user(request, f"{tournament}: {error}", messages.ERROR)
            else:
                self.message_user(request, f"{tournament}: {done.format(result=result)}", messages.SUCCESS)

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

    @admin.action(description="Add all active bots of their game")
    def add_all_active(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, tournament_ops.add_all_active, "{result} bots added.")

    @admin.action(description="Close registration")
    def close_registration(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, lambda pk: tournament_ops.set_registration(pk, False), "registration closed.")

    @admin.action(description="Cancel the selected tournaments (withdraw their unplayed matches)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, tournament_ops.cancel, "cancelled; {result} matches withdrawn.")

    @admin.action(description="Re-run the failed matches")
    def rerun_failed(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        self._each(request, queryset, tournament_ops.rerun_failed, "{result} failed matches queued again.")
