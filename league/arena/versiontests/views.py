"""The version test pages: the start form and the tests on the bot page, a test's own page (its live part polled until
it ends), and cancelling.

A private test is shown to its owner and staff only (a 404 for anyone else); a public one to everybody. Its games are
public like every other game.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from bots.sprt.counts import CELL_NAMES
from league.arena.models import COOP_GAMES, Bot, BotVersion, Game, VersionTest
from league.arena.play import wording
from league.arena.versiontests import running
from league.arena.versiontests.chart import llr_chart
from league.arena.web.decorators import sees_private

RECENT_SHOWN = 10
TEST_RELATIONS = ("bot__owner", "version", "base_bot__owner", "base_version")
GAMES_SHOWN = 40


class VersionChoice(forms.TypedChoiceField):
    """A version out of a list read once (a model choice field would query its choices on every rendering)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(coerce=int, **kwargs)
        self.versions: dict[int, BotVersion] = {}

    def offer(self, versions: list[BotVersion]) -> None:
        self.versions = {version.pk: version for version in versions}
        self.choices = [(version.pk, f"{version.bot.full_name} {version.label}") for version in versions]

    def clean(self, value: Any) -> BotVersion:
        return self.versions[super().clean(value)]


class VersionTestForm(forms.Form):
    version = VersionChoice(label="New version")
    base = VersionChoice(
        label="Against",
        help_text="Another version of this bot, or the active version of any bot on the ladder.",
    )
    elo0 = forms.FloatField(initial=0.0, label="H0: Elo at most")
    elo1 = forms.FloatField(initial=5.0, label="H1: Elo at least")
    elo_model = forms.ChoiceField(
        choices=VersionTest.Model.choices, initial=VersionTest.Model.NORMALIZED, label="Elo model"
    )
    max_games = forms.IntegerField(min_value=2, label="Game cap")  # bounded by the setting in __init__
    players = forms.TypedChoiceField(coerce=int, label="Team size", required=False)
    public = forms.BooleanField(required=False, label="Public (anyone may see the test)")

    def __init__(self, *args: Any, bot: Bot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        mine = list(running.playable_versions().filter(bot=bot).select_related("bot__owner").order_by("-number"))
        bases = list(running.bases(bot))
        self.fields["version"].offer(mine)
        self.fields["base"].offer(bases)
        # By default the newest version against the one before it, or against the first other bot.
        others = [version for version in bases if not mine or version.pk != mine[0].pk]
        self.has_versions, self.has_bases = bool(mine), bool(others)
        self.fields["version"].initial = mine[0].pk if mine else None
        self.fields["base"].initial = others[0].pk if others else None
        most = settings.ARENA_TEST_MAX_GAMES
        self.fields["max_games"] = forms.IntegerField(
            min_value=2,
            max_value=most,
            initial=min(10_000, most),
            label="Game cap",
            help_text=f"2 to {most:,}; the test stops here without a verdict.",
        )
        if bot.game in COOP_GAMES:
            self.fields["players"].choices = [(size, str(size)) for size in settings.ARENA_COOP_TEAM_SIZES]
        else:
            del self.fields["players"]

    def start(self, user: Any) -> VersionTest:
        data = self.cleaned_data
        return running.start(
            user,
            data["version"],
            data["base"],
            elo0=data["elo0"],
            elo1=data["elo1"],
            elo_model=data["elo_model"],
            max_games=data["max_games"],
            players=data.get("players") or None,
            public=data["public"],
        )


def visible(user: Any, tests: QuerySet[VersionTest] | None = None) -> QuerySet[VersionTest]:
    """The tests `user` may see (of `tests`, by default all with their bots and versions): the public ones, their
    own, every one for staff."""
    shown = tests if tests is not None else VersionTest.objects.select_related(*TEST_RELATIONS)
    if user.is_authenticated and user.is_staff:
        return shown
    if user.is_authenticated:
        return shown.filter(Q(public=True) | Q(owner=user))
    return shown.filter(public=True)


def bot_page_part(request: HttpRequest, bot: Bot, form: VersionTestForm | None = None) -> dict:
    """The bot page's tests: the newest the visitor may see, and for its owner the form.

    Most bots have none: their ids are looked up first in the tests' table alone, and only a bot with tests pays
    for reading them with their bots and versions (a join of six tables, which costs a page more to plan than
    to run)."""
    shown = visible(request.user, VersionTest.objects.filter(bot=bot)).values_list("pk", flat=True)[:RECENT_SHOWN]
    ids = list(shown)
    tests = list(VersionTest.objects.select_related(*TEST_RELATIONS).filter(pk__in=ids)) if ids else []
    for test in tests:
        test.words = running.sentence(test)
    part: dict[str, Any] = {"version_tests": tests}
    if bot.owner_id == request.user.pk:
        part["test_form"] = form or VersionTestForm(bot=bot)
        part["tests_at_once"] = settings.ARENA_TESTS_AT_ONCE
        part["test_games_per_day"] = settings.ARENA_TEST_GAMES_PER_DAY
    return part


def _test_context(request: HttpRequest, test_id: int) -> dict:
    test = get_object_or_404(visible(request.user), pk=test_id)
    status = running.status_of(test)
    new, base = running.names(test)
    played = (
        Game.objects.filter(match__version_test=test, match__status="done")
        .defer("log_zlib", "detail")
        .prefetch_related("seats")
        .order_by("-match_id", "-index")[:GAMES_SHOWN]
    )
    labels = {test.version_id: new, test.base_version_id: base}
    games = []
    for game in played:
        seated = [labels.get(seat.version_id, "?") for seat in game.seats.all()]
        words = wording.game_result(game.termination, game.winner_seat, game.fault_seat, game.score, seated)
        games.append((game, words))
    cells = list(zip(CELL_NAMES[status.counts.kind], status.counts.cells, strict=True))
    return {
        "test": test,
        "status": status,
        "sentence": running.sentence(test),
        "cells": cells,
        "chart": llr_chart(test.history, status.test.lower, status.test.upper, test.max_games),
        "new_name": new,
        "base_name": base,
        "games": games,
        "is_owner": test.owner_id == request.user.pk,
        "sees_private": sees_private(request.user, test.owner_id),
    }


def test_page(request: HttpRequest, test_id: int) -> HttpResponse:
    return render(request, "arena/version_test.html", _test_context(request, test_id))


def test_status(request: HttpRequest, test_id: int) -> HttpResponse:
    """The test page's live part alone, polled by the page until the test ends."""
    return render(request, "arena/_version_test_status.html", _test_context(request, test_id))


@require_POST
@login_required
def cancel_test(request: HttpRequest, test_id: int) -> HttpResponse:
    test = get_object_or_404(visible(request.user), pk=test_id)
    if not sees_private(request.user, test.owner_id):
        raise Http404("no such test")
    try:
        cancelled = running.cancel(request.user, test)
    except running.TestRefused as error:
        raise Http404(str(error)) from None
    if cancelled:
        messages.success(request, f"Test {test.pk} cancelled: no more games will be played.")
    return redirect(test)
