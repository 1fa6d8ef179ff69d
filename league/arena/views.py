"""Pages: sign-up, your bots, uploads, a bot's versions, ladders, tournaments, matches and game logs."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from league.arena import ladder, tournaments
from league.arena.decorators import with_bot
from league.arena.forms import NewBotForm, NewVersionForm, SignupForm
from league.arena.models import (
    FACE_TO_FACE,
    GAME_NAMES,
    Bot,
    BotVersion,
    Game,
    LogTampered,
    Match,
    Tournament,
)
from league.arena.uploads import UploadRejected, add_version


def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "arena/home.html",
        {
            "top": ladder.leaderboard(FACE_TO_FACE)[:5],
            "tournaments": Tournament.objects.exclude(status=Tournament.Status.DRAFT)[:5],
            "upcoming": Tournament.objects.filter(status=Tournament.Status.DRAFT, scheduled_at__isnull=False)[:5],
        },
    )


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome, {user.username}! Upload your first bot.")
        return redirect("new-bot")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    bots = request.user.bots.prefetch_related("versions").order_by("name")
    return render(request, "arena/my_bots.html", {"bots": bots})


@login_required
def new_bot(request: HttpRequest) -> HttpResponse:
    form = NewBotForm(request.POST or None, request.FILES or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with transaction.atomic():
                bot = Bot.objects.create(
                    owner=request.user, name=data["name"], game=data["game"], description=data["description"]
                )
                add_version(bot, data["file"])
        except UploadRejected as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, f"{bot.name} v1 is uploaded; its validation games are queued.")
            return redirect(bot)
    limits = {
        "max_py_mib": settings.ARENA_MAX_PY_BYTES / (1 << 20),
        "max_zip_mib": settings.ARENA_MAX_ZIP_BYTES / (1 << 20),
    }
    return render(request, "arena/new_bot.html", {"form": form, **limits})


def _versions_context(request: HttpRequest, bot: Bot) -> dict:
    versions = list(bot.versions.defer("content").order_by("-number"))
    return {
        "bot": bot,
        "versions": versions,
        "is_owner": bot.owner_id == request.user.pk,
        "validating": any(v.status == BotVersion.Status.VALIDATING for v in versions),
    }


@with_bot()
def bot_page(request: HttpRequest, bot: Bot) -> HttpResponse:
    context = _versions_context(request, bot)
    context["form"] = NewVersionForm() if context["is_owner"] else None
    context["matches"] = (
        Match.objects.filter(entries__version__bot=bot)
        .exclude(kind=Match.Kind.VALIDATION)
        .distinct()
        .prefetch_related("entries__version__bot__owner")[:20]
    )
    return render(request, "arena/bot.html", context)


@with_bot()
def bot_versions(request: HttpRequest, bot: Bot) -> HttpResponse:
    """The versions table alone, polled by the bot page while a version is being validated."""
    return render(request, "arena/_versions.html", _versions_context(request, bot))


@with_bot()
def bot_status(request: HttpRequest, bot: Bot) -> JsonResponse:
    is_owner = bot.owner_id == request.user.pk
    versions = []
    for version in bot.versions.defer("content").order_by("-number"):
        row = {"number": version.number, "sha256": version.sha256, "status": version.status}
        if is_owner:
            row.update(failure_reason=version.failure_reason, stderr_tail=version.stderr_tail)
        versions.append(row)
    return JsonResponse({"bot": bot.full_name, "game": bot.game, "versions": versions})


@require_POST
@login_required
@with_bot(owner_only=True)
def new_version(request: HttpRequest, bot: Bot) -> HttpResponse:
    form = NewVersionForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            version = add_version(bot, form.cleaned_data["file"])
        except UploadRejected as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, f"v{version.number} is uploaded; its validation games are queued.")
            return redirect(bot)
    context = _versions_context(request, bot)
    context["form"] = form
    context["matches"] = []
    return render(request, "arena/bot.html", context, status=400)


def leaderboard(request: HttpRequest, game: str = FACE_TO_FACE) -> HttpResponse:
    if game not in GAME_NAMES:
        raise Http404(f"no game called {game}")
    return render(
        request,
        "arena/leaderboard.html",
        {"game": game, "game_name": GAME_NAMES[game], "rows": ladder.leaderboard(game)},
    )


def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/tournaments.html", {"tournaments": Tournament.objects.all()[:100]})


def _tournament_context(tournament: Tournament) -> dict:
    played, planned = tournament.progress()
    return {
        "tournament": tournament,
        "table": tournaments.table(tournament),
        "played": played,
        "planned": planned,
        "percent": round(100 * played / planned) if planned else 0,
        "left_out": tournament.entries.filter(version__isnull=True).select_related("bot__owner")
        if tournament.status != Tournament.Status.DRAFT
        else [],
    }


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    context = _tournament_context(tournament)
    context["entries"] = tournament.entries.select_related("bot__owner", "version")
    return render(request, "arena/tournament.html", context)


def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return render(request, "arena/_standings.html", _tournament_context(tournament))


def _visible_match(request: HttpRequest, match_id: int) -> Match:
    """A validation match is private to the candidate's owner (its details may quote the bot's errors)."""
    match = get_object_or_404(Match, pk=match_id)
    if match.kind == Match.Kind.VALIDATION and not request.user.is_staff:
        candidate = match.entries.select_related("version__bot").get(index=0).version.bot
        if candidate.owner_id != request.user.pk:
            raise Http404("no such match")
    return match


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _visible_match(request, match_id)
    entries = list(match.entries.select_related("version__bot__owner").order_by("index"))
    games = match.played_games.prefetch_related("seats").defer("log_zlib").order_by("index")
    return render(request, "arena/match.html", {"match": match, "entries": entries, "games": games})


def game_log(request: HttpRequest, game_id: int) -> JsonResponse:
    """The game's log, re-verified by the engine on every read."""
    game = get_object_or_404(Game, pk=game_id)
    _visible_match(request, game.match_id)
    try:
        log = game.verified_log()
    except LogTampered as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse(log)
