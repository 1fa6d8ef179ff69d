"""Pages: sign-up, your bots, uploads, a bot's versions, ladders, tournaments, matches and game logs."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import InvalidPage, Page, Paginator
from django.db import transaction
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from league.arena import caching, coop_tournaments, leaderboards, tournaments
from league.arena.decorators import with_bot
from league.arena.forms import NewBotForm, NewVersionForm, SignupForm
from league.arena.models import (
    FACE_TO_FACE,
    GAME_CHOICES,
    GAME_NAMES,
    Bot,
    BotVersion,
    Game,
    LogTampered,
    Match,
    MatchEntry,
    Tournament,
)
from league.arena.uploads import UploadRejected, add_version

LADDER_PER_PAGE = 50
HOME_TOP = 5
HOME_TOURNAMENTS = 5
TOURNAMENTS_PER_PAGE = 25
BOTS_PER_PAGE = 50
VERSIONS_SHOWN = 50
RECENT_MATCHES = 20
GAMES_PER_PAGE = 100


def page_number(request: HttpRequest) -> int:
    """The ?page= number (1 when absent); anything but a positive integer is a 404."""
    raw = request.GET.get("page", "1")
    try:
        number = int(raw)
    except ValueError:
        raise Http404(f"{raw[:20]!r} is not a page number") from None
    if number < 1:
        raise Http404(f"{number} is not a page number")
    return number


def paginate(request: HttpRequest, items: QuerySet, per_page: int) -> Page:
    """The requested page of `items`; a page past the end is a 404 (the first page always exists)."""
    try:
        return Paginator(items, per_page).page(page_number(request))
    except InvalidPage as error:
        raise Http404(str(error)) from None


def home(request: HttpRequest) -> HttpResponse:
    top = caching.fragment(
        "home-top",
        caching.leaderboard_scope(FACE_TO_FACE),
        lambda: render_to_string(
            "arena/_top.html", {"rows": leaderboards.top(FACE_TO_FACE, HOME_TOP), "game_choices": GAME_CHOICES}
        ),
    )
    started = Tournament.objects.exclude(status=Tournament.Status.DRAFT)
    upcoming = Tournament.objects.filter(status=Tournament.Status.DRAFT, scheduled_at__isnull=False)
    return render(
        request,
        "arena/home.html",
        {
            "top": top,
            "tournaments": started[:HOME_TOURNAMENTS],
            "upcoming": upcoming.order_by("scheduled_at")[:HOME_TOURNAMENTS],
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
    newest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number").values("pk")[:1]
    bots = request.user.bots.annotate(newest_id=Subquery(newest)).order_by("name", "pk")
    page = paginate(request, bots, BOTS_PER_PAGE)
    versions = BotVersion.objects.in_bulk([bot.newest_id for bot in page if bot.newest_id])
    for bot in page:
        bot.newest = versions.get(bot.newest_id)
    return render(request, "arena/my_bots.html", {"page": page})


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


def _newest_versions(bot: Bot) -> tuple[list[BotVersion], int]:
    """The bot's newest VERSIONS_SHOWN versions, and how many older ones are not shown."""
    versions = list(bot.versions.order_by("-number")[: VERSIONS_SHOWN + 1])
    if len(versions) <= VERSIONS_SHOWN:
        return versions, 0
    return versions[:VERSIONS_SHOWN], bot.versions.count() - VERSIONS_SHOWN


def _versions_context(request: HttpRequest, bot: Bot) -> dict:
    versions, older = _newest_versions(bot)
    return {
        "bot": bot,
        "versions": versions,
        "older": older,
        "is_owner": bot.owner_id == request.user.pk,
        "validating": any(v.status == BotVersion.Status.VALIDATING for v in versions),
    }


def _entries_with_bots() -> Prefetch:
    return Prefetch("entries", queryset=MatchEntry.objects.select_related("version__bot__owner").order_by("index"))


def recent_matches(bot: Bot) -> list[Match]:
    """The bot's RECENT_MATCHES newest matches but its validations, each with its entries."""
    # The version ids as constants let PostgreSQL walk the entries' match index backwards and stop after a few rows,
    # even for a bot with tens of thousands of matches (a join to the versions would sort them all).
    versions = list(bot.versions.values_list("pk", flat=True))
    newest = (
        MatchEntry.objects.filter(version_id__in=versions)
        .exclude(match__kind=Match.Kind.VALIDATION)
        .order_by("-match_id")
        .values("match_id")[:RECENT_MATCHES]
    )
    return list(Match.objects.filter(pk__in=newest).order_by("-pk").prefetch_related(_entries_with_bots()))


@with_bot()
def bot_page(request: HttpRequest, bot: Bot) -> HttpResponse:
    context = _versions_context(request, bot)
    context["form"] = NewVersionForm() if context["is_owner"] else None
    context["matches"] = recent_matches(bot)
    return render(request, "arena/bot.html", context)


@with_bot()
def bot_versions(request: HttpRequest, bot: Bot) -> HttpResponse:
    """The versions table alone, polled by the bot page while a version is being validated."""
    return render(request, "arena/_versions.html", _versions_context(request, bot))


@with_bot()
def bot_status(request: HttpRequest, bot: Bot) -> JsonResponse:
    is_owner = bot.owner_id == request.user.pk
    versions = []
    for version in _newest_versions(bot)[0]:
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


def _ladder_table(game: str, number: int) -> str:
    page = leaderboards.leaderboard_page(game, number, per_page=LADDER_PER_PAGE)
    if page.number != number:
        raise Http404(f"the {GAME_NAMES[game]} ladder has {page.num_pages} pages")
    return render_to_string("arena/_ladder_table.html", {"page": page, "game_name": GAME_NAMES[game]})


def leaderboard(request: HttpRequest, game: str = FACE_TO_FACE) -> HttpResponse:
    if game not in GAME_NAMES:
        raise Http404(f"no game called {game}")
    number = page_number(request)
    table = caching.fragment(
        f"ladder:{game}:{number}", caching.leaderboard_scope(game), lambda: _ladder_table(game, number)
    )
    return render(
        request,
        "arena/leaderboard.html",
        {"game": game, "game_name": GAME_NAMES[game], "number": number, "table": table},
    )


def tournament_list(request: HttpRequest) -> HttpResponse:
    page = paginate(request, Tournament.objects.order_by("-created", "-pk"), TOURNAMENTS_PER_PAGE)
    return render(request, "arena/tournaments.html", {"page": page})


def _tournament_table(tournament: Tournament) -> str:
    left_out = []
    if tournament.status != Tournament.Status.DRAFT:
        left_out = tournament.entries.filter(version__isnull=True).select_related("bot__owner")
    if tournament.is_coop:
        coop = {"table": coop_tournaments.table(tournament), "left_out": left_out}
        return render_to_string("arena/_coop_tournament_table.html", coop)
    return render_to_string(
        "arena/_tournament_table.html", {"table": tournaments.table(tournament), "left_out": left_out}
    )


def _tournament_context(tournament: Tournament) -> dict:
    played, planned = tournament.progress()
    table = caching.fragment(
        f"tournament-table:{tournament.pk}:{tournament.status}",
        caching.tournament_scope(tournament.pk),
        lambda: _tournament_table(tournament),
    )
    return {
        "tournament": tournament,
        "table": table,
        "played": played,
        "planned": planned,
        "percent": round(100 * played / planned) if planned else 0,
    }


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    context = _tournament_context(tournament)
    if tournament.status == Tournament.Status.DRAFT:
        context["entries"] = tournament.entries.select_related("bot__owner").order_by("pk")
    return render(request, "arena/tournament.html", context)


def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return render(request, "arena/_standings.html", _tournament_context(tournament))


def _require_visible(request: HttpRequest, match: Match) -> None:
    """A validation match is private to the candidate's owner (its details may quote the bot's errors)."""
    if match.kind == Match.Kind.VALIDATION and not request.user.is_staff:
        candidate_owner = match.entries.filter(index=0).values_list("version__bot__owner_id", flat=True).first()
        if candidate_owner != request.user.pk:
            raise Http404("no such match")


def _visible_match(request: HttpRequest, match_id: int) -> Match:
    match = get_object_or_404(Match, pk=match_id)
    _require_visible(request, match)
    return match


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    shown = Match.objects.select_related("tournament").prefetch_related(_entries_with_bots())
    match = get_object_or_404(shown, pk=match_id)
    _require_visible(request, match)
    entries = list(match.entries.all())
    names = {entry.version_id: entry.version.bot.name for entry in entries}
    played = match.played_games.defer("log_zlib", "detail").prefetch_related("seats").order_by("index")
    page = paginate(request, played, GAMES_PER_PAGE)
    games = [(game, [names.get(seat.version_id, "?") for seat in game.seats.all()]) for game in page]
    return render(request, "arena/match.html", {"match": match, "entries": entries, "page": page, "games": games})


def game_log(request: HttpRequest, game_id: int) -> JsonResponse:
    """The game's log, re-verified by the engine on every read."""
    game = get_object_or_404(Game, pk=game_id)
    _visible_match(request, game.match_id)
    try:
        log = game.verified_log()
    except LogTampered as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse(log)
