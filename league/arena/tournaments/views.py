"""The tournament list, a tournament's page with its live part (status, progress, table) and its matches."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, Count, F, Q, Sum, When
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string

from league.arena.lib import caching
from league.arena.models import (
    Bot,
    Match,
    MatchEntry,
    Tournament,
)
from league.arena.play.views import _entries_with_bots
from league.arena.tournaments import actions, standings
from league.arena.tournaments import coop as coop_tournaments
from league.arena.web.pagination import paginate

TOURNAMENTS_PER_PAGE = 25
TOURNAMENT_MATCHES_PER_PAGE = 50


def tournament_list(request: HttpRequest) -> HttpResponse:
    page = paginate(request, Tournament.objects.order_by("-created", "-pk"), TOURNAMENTS_PER_PAGE)
    return render(request, "arena/tournaments.html", {"page": page})


def _tournament_table(tournament: Tournament) -> str:
    left_out = []
    if tournament.status != Tournament.Status.DRAFT:
        left_out = tournament.entries.filter(version__isnull=True).select_related("bot__owner")
    if tournament.is_coop:
        coop = {"table": coop_tournaments.table(tournament), "left_out": left_out, "tournament": tournament}
        return render_to_string("arena/_coop_tournament_table.html", coop)
    return render_to_string(
        "arena/_tournament_table.html",
        {"table": standings.table(tournament), "left_out": left_out, "tournament": tournament},
    )


@dataclass(frozen=True)
class Progress:
    """A tournament's games played of planned, and its matches by status."""

    played: int
    planned: int
    queued: int
    running: int
    done: int
    failed: int
    cancelled: int

    @property
    def percent(self) -> int:
        return round(100 * self.played / self.planned) if self.planned else 0

    @property
    def matches(self) -> int:
        return self.queued + self.running + self.done + self.failed + self.cancelled


def tournament_progress(tournament: Tournament) -> Progress:
    """Games played and planned and the matches in each status, in one aggregate query."""
    by_status = {status: Count("pk", filter=Q(status=status)) for status in Match.Status.values}
    totals = tournament.matches.aggregate(
        planned=Coalesce(Sum("games"), 0),
        played=Coalesce(Sum(Case(When(status=Match.Status.DONE, then=F("games")), default=F("games_done"))), 0),
        **by_status,
    )
    return Progress(**totals)


def _tournament_context(tournament: Tournament) -> dict:
    context = {"tournament": tournament, "progress": tournament_progress(tournament)}
    if tournament.status == Tournament.Status.DRAFT:
        context["entries"] = tournament.entries.select_related("bot__owner").order_by("pk")
    else:
        context["table"] = caching.fragment(
            f"tournament-table:{tournament.pk}:{tournament.status}",
            caching.tournament_scope(tournament.pk),
            lambda: _tournament_table(tournament),
        )
    return context


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    context = _tournament_context(tournament)
    context["enterable"] = actions.enterable_bots(request, tournament)
    if request.user.has_perm("arena.change_tournament"):
        context["staff_actions"] = actions.available_actions(tournament)
    return render(request, "arena/tournament.html", context)


def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of the tournament page (status, countdown, progress, table), polled while it can change."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return render(request, "arena/_standings.html", _tournament_context(tournament))


def _bot_id(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise Http404(f"{name}={raw[:20]!r} is not a bot id") from None


def tournament_matches(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A tournament's matches, or one bot's (?bot=<id>), or one pairing's (?bot=<id>&vs=<id>)."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    bot_id, vs_id = _bot_id(request, "bot"), _bot_id(request, "vs")
    matches = tournament.matches.order_by("pk")
    for chosen in (bot_id, vs_id):
        if chosen is not None:
            entries = MatchEntry.objects.filter(match__tournament=tournament, version__bot_id=chosen)
            matches = matches.filter(pk__in=entries.values("match_id"))
    page = paginate(request, matches.prefetch_related(_entries_with_bots()), TOURNAMENT_MATCHES_PER_PAGE)
    shown = {bot_id, vs_id} - {None}
    named = Bot.objects.filter(pk__in=shown).select_related("owner").order_by("pk") if shown else []
    bots = {bot.pk: bot for bot in named}
    return render(
        request,
        "arena/tournament_matches.html",
        {"tournament": tournament, "page": page, "bot": bots.get(bot_id), "vs": bots.get(vs_id)},
    )
