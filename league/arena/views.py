"""Pages: sign-up, your bots, uploads, a bot's versions, owners, ladders, tournaments, matches, game logs and docs."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.core.paginator import InvalidPage, Page, Paginator
from django.db.models import Case, Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum, When
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from league.arena import bot_pages, docs
from league.arena.decorators import per_user, throttled, with_bot
from league.arena.ladder import leaderboards
from league.arena.lib import caching
from league.arena.lib.throttles import client_address
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
    Rating,
    Tournament,
)
from league.arena.play import wording
from league.arena.scrims import views as scrim_views
from league.arena.tournaments import coop as coop_tournaments
from league.arena.tournaments import standings
from league.arena.tournaments import views as tournament_views
from league.arena.uploads.forms import NewBotForm, NewVersionForm, SignupForm
from league.arena.uploads.intake import NameTaken, UploadRejected, add_bot, add_version

LADDER_PER_PAGE = 50
HOME_TOP = 5
HOME_TOURNAMENTS = 5
TOURNAMENTS_PER_PAGE = 25
BOTS_PER_PAGE = 50
GAMES_PER_PAGE = 100
OWNER_BOTS_PER_PAGE = 50
TOURNAMENT_MATCHES_PER_PAGE = 50
UPLOADS_REFUSED = "You have uploaded as many bots and versions as one account may in an hour."


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


@throttled("signup", "ARENA_SIGNUPS_PER_HOUR", client_address, "Too many sign-ups from your address this hour.")
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
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
@throttled("upload", "ARENA_UPLOADS_PER_HOUR", per_user, UPLOADS_REFUSED)
def new_bot(request: HttpRequest) -> HttpResponse:
    form = NewBotForm(request.POST or None, request.FILES or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            bot = add_bot(request.user, data["name"], data["game"], data["description"], data["file"])
        except NameTaken as error:
            form.add_error("name", str(error))
        except UploadRejected as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, _uploaded(bot, 1))
            return redirect(bot)
    limits = {
        "max_py_mib": settings.ARENA_MAX_PY_BYTES / (1 << 20),
        "max_zip_mib": settings.ARENA_MAX_ZIP_BYTES / (1 << 20),
    }
    return render(request, "arena/new_bot.html", {"form": form, **limits})


def _uploaded(bot: Bot, number: int) -> str:
    # Shown once, above a versions table that keeps itself up to date: true before and after validation ends.
    return (
        f"{bot.name} v{number} is uploaded. It plays {settings.ARENA_VALIDATION_GAMES} validation games in the "
        "sandbox; its status in the versions table below follows them."
    )


def _entries_with_bots() -> Prefetch:
    return Prefetch("entries", queryset=MatchEntry.objects.select_related("version__bot__owner").order_by("index"))


@with_bot()
def bot_page(request: HttpRequest, bot: Bot) -> HttpResponse:
    context = bot_pages.page_context(request, bot)
    context["form"] = NewVersionForm() if context["is_owner"] else None
    context.update(scrim_views.bot_page_part(request, bot))
    return render(request, "arena/bot.html", context)


@with_bot()
def bot_versions(request: HttpRequest, bot: Bot) -> HttpResponse:
    """The versions table alone, polled by the bot page while a version is being validated."""
    return render(request, "arena/_versions.html", bot_pages.versions_context(request, bot))


@with_bot()
def bot_status(request: HttpRequest, bot: Bot) -> JsonResponse:
    is_owner = bot.owner_id == request.user.pk
    versions = []
    for version in bot_pages.newest_versions(bot)[0]:
        row = {"number": version.number, "sha256": version.sha256, "status": version.status}
        if is_owner:
            row.update(failure_reason=version.failure_reason, stderr_tail=version.stderr_tail)
        versions.append(row)
    return JsonResponse({"bot": bot.full_name, "game": bot.game, "versions": versions})


@require_POST
@login_required
@throttled("upload", "ARENA_UPLOADS_PER_HOUR", per_user, UPLOADS_REFUSED)
@with_bot(owner_only=True)
def new_version(request: HttpRequest, bot: Bot) -> HttpResponse:
    form = NewVersionForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            version = add_version(bot, form.cleaned_data["file"])
        except UploadRejected as error:
            form.add_error("file", str(error))
        else:
            messages.success(request, _uploaded(bot, version.number))
            return redirect(bot)
    context = bot_pages.page_context(request, bot)
    context["form"] = form
    context.update(scrim_views.bot_page_part(request, bot))
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
    context["enterable"] = tournament_views.enterable_bots(request, tournament)
    if request.user.has_perm("arena.change_tournament"):
        context["staff_actions"] = tournament_views.available_actions(tournament)
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
    names = {entry.version_id: entry.version.bot.full_name for entry in entries}
    played = match.played_games.defer("log_zlib", "detail").prefetch_related("seats").order_by("index")
    page = paginate(request, played, GAMES_PER_PAGE)
    games = []
    for game in page:
        seated = [names.get(seat.version_id, "?") for seat in game.seats.all()]
        result = wording.game_result(game.termination, game.winner_seat, game.fault_seat, game.score, seated)
        games.append((game, seated, result))
    context = {"match": match, "entries": entries, "page": page, "games": games}
    if len(entries) == 2 and any(entry.games for entry in entries):
        first, second = entries
        context["score"] = (first, f"{wording.points(first.points)} – {wording.points(second.points)}", second)
    return render(request, "arena/match.html", context)


def game_log(request: HttpRequest, game_id: int) -> JsonResponse:
    """The game's log, re-verified by the engine on every read."""
    game = get_object_or_404(Game, pk=game_id)
    _visible_match(request, game.match_id)
    try:
        log = game.verified_log()
    except LogTampered as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse(log)


def user_page(request: HttpRequest, username: str) -> HttpResponse:
    """An owner's bots with their game, ladder version, Elo and rank on that game's ladder."""
    owner = get_object_or_404(get_user_model(), username=username)
    # Rank as the leaderboard counts it: 1 + the game's ladder bots whose version is rated higher.
    higher = (
        Rating.objects.filter(
            game=OuterRef("game"),
            elo__gt=OuterRef("active_version__rating__elo"),
            version__in=BotVersion.objects.on_ladder(),
        )
        .order_by()
        .values("game")
        .annotate(n=Count("pk"))
        .values("n")
    )
    bots = (
        owner.bots.select_related("active_version__rating")
        .annotate(higher=Subquery(higher))
        .order_by("game", "name", "pk")
    )
    page = paginate(request, bots, OWNER_BOTS_PER_PAGE)
    for bot in page:
        rating = getattr(bot.active_version, "rating", None) if bot.active_version else None
        bot.rating = rating
        bot.rank = (bot.higher or 0) + 1 if rating is not None and bot.is_on_ladder else None
    return render(request, "arena/user.html", {"owner": owner, "page": page})


def docs_index(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/docs_index.html", {"pages": docs.PAGES, "starters": docs.starters()})


def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    page = docs.BY_SLUG.get(slug)
    html = docs.page_html(page) if page else None
    if html is None:
        raise Http404(f"no documentation page called {slug}")
    return render(request, "arena/doc.html", {"page": page, "html": html, "pages": docs.PAGES})


def starter(request: HttpRequest, name: str) -> HttpResponse:
    """A starter bot's source as a download."""
    source = docs.starter_source(name)
    if source is None:
        raise Http404(f"no starter bot called {name}")
    response = HttpResponse(source, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
