"""Running a tournament from its own page: staff start, fill, open or close registration, cancel and re-run it
(each through a confirmation page that POSTs), and owners enter their bots while registration is open.

The same confirmation pages are linked from the tournament's admin page, so there is one way to do each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from league.arena.models import Bot, Match, Tournament
from league.arena.tournaments import ops as tournament_ops
from league.arena.tournaments import starting as tournaments

DRAFT, RUNNING, FINISHED = Tournament.Status.DRAFT, Tournament.Status.RUNNING, Tournament.Status.FINISHED


# Each runs one operation on the tournament with that id and says what it did (NotAllowed says why not).


def _start(pk: int) -> str:
    started = tournaments.start(pk)
    if not started:
        raise tournament_ops.NotAllowed("it had already started")
    return f"started: {len(started)} matches queued"


def _open_registration(pk: int) -> str:
    tournament_ops.set_registration(pk, True)
    return "registration is open"


def _close_registration(pk: int) -> str:
    tournament_ops.set_registration(pk, False)
    return "registration is closed"


@dataclass(frozen=True)
class Action:
    name: str
    label: str
    explanation: str
    applies: Callable[[Tournament], bool]
    run: Callable[[int], str]


ACTIONS = {
    action.name: action
    for action in (
        Action(
            "start",
            "Start now",
            "Each entrant's newest active version is frozen and every match is queued. Entrants without an "
            "active version are left out.",
            lambda t: t.status == DRAFT,
            _start,
        ),
        Action(
            "add-all",
            "Add all active bots",
            "Every bot of this game with an active version is entered (those already in stay).",
            lambda t: t.status == DRAFT,
            lambda pk: f"{tournament_ops.add_all_active(pk)} bots added",
        ),
        Action(
            "open-registration",
            "Open registration",
            "Owners may enter their own active bots of this game from this page until the tournament starts.",
            lambda t: t.status == DRAFT and not t.registration_open,
            _open_registration,
        ),
        Action(
            "close-registration",
            "Close registration",
            "Owners can no longer enter bots; the entrants so far stay.",
            lambda t: t.registration_open,
            _close_registration,
        ),
        Action(
            "rerun-failed",
            "Re-run failed matches",
            "The matches that failed (they stored nothing) are queued again from the start.",
            lambda t: t.status in (RUNNING, FINISHED) and t.matches.filter(status=Match.Status.FAILED).exists(),
            lambda pk: f"{tournament_ops.rerun_failed(pk)} failed matches queued again",
        ),
        Action(
            "cancel",
            "Cancel the tournament",
            "Queued matches are withdrawn, and a match being played is dropped when it ends: none of its games "
            "are stored. Finished matches stay in the standings. This cannot be undone.",
            lambda t: t.status in (DRAFT, RUNNING),
            lambda pk: f"cancelled; {tournament_ops.cancel(pk)} matches withdrawn",
        ),
    )
}


def available_actions(tournament: Tournament) -> list[Action]:
    return [action for action in ACTIONS.values() if action.applies(tournament)]


def _may_run(request: HttpRequest) -> bool:
    return request.user.has_perm("arena.change_tournament")


@staff_member_required
def tournament_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    """GET: what the action does and a button to confirm it; POST: do it, then back to the page it came from."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    chosen = ACTIONS.get(action)
    if chosen is None:
        raise Http404(f"there is no tournament action {action!r}")
    if not _may_run(request):
        return HttpResponseForbidden("You may not change tournaments.")
    back = request.GET.get("from") == "admin" or request.POST.get("from") == "admin"
    back_url = reverse("admin:arena_tournament_change", args=[tournament.pk]) if back else tournament.get_absolute_url()
    if request.method != "POST":
        context = {"tournament": tournament, "action": chosen, "back_url": back_url, "from_admin": back}
        return render(request, "arena/tournament_action.html", context)
    try:
        done = chosen.run(tournament.pk)
    except (tournament_ops.NotAllowed, tournaments.TournamentError) as error:
        messages.error(request, f"{chosen.label}: not done: {error}.")
    else:
        messages.success(request, f"{tournament.name}: {done}.")
    return redirect(back_url)


def enterable_bots(request: HttpRequest, tournament: Tournament) -> list[Bot]:
    """The user's bots they could enter in the tournament now (none unless registration is open)."""
    if not (request.user.is_authenticated and tournament.registration_open and tournament.status == DRAFT):
        return []
    entered = tournament.entries.values("bot_id")
    return list(tournament_ops.eligible_bots(tournament.game).filter(owner=request.user).exclude(pk__in=entered))


@require_POST
@login_required
def enter_tournament(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    raw = request.POST.get("bot", "")
    bot = Bot.objects.filter(pk=int(raw), owner=request.user).first() if raw.isdigit() else None
    if bot is None:
        messages.error(request, "Choose one of your own bots to enter.")
        return redirect(tournament)
    try:
        tournament_ops.enter(tournament.pk, bot)
    except tournament_ops.NotAllowed as error:
        messages.error(request, f"{bot.name} was not entered: {error}.")
    else:
        messages.success(request, f"{bot.name} is entered in {tournament.name}.")
    return redirect(tournament)
