"""A bot's page (with its versions table, polled while one validates, and the new-version form) and an owner's page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Count, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from league.arena.analysis import blunders
from league.arena.coop import bot_results as coop_results
from league.arena.ladder.leaderboards import TIE_ELO
from league.arena.lib import caching
from league.arena.models import (
    Bot,
    BotVersion,
    Rating,
)
from league.arena.profiles import bot_page as bot_pages
from league.arena.scrims import requests as scrims
from league.arena.scrims import views as scrim_views
from league.arena.uploads.forms import NewVersionForm
from league.arena.uploads.intake import UploadRejected, add_version
from league.arena.uploads.views import UPLOADS_REFUSED, _uploaded
from league.arena.versiontests import running as version_tests
from league.arena.versiontests import views as test_views
from league.arena.web.decorators import per_user, throttled, with_bot
from league.arena.web.pagination import paginate

OWNER_BOTS_PER_PAGE = 50


@with_bot()
def bot_page(request: HttpRequest, bot: Bot) -> HttpResponse:
    context = bot_pages.page_context(request, bot)
    context["form"] = NewVersionForm() if context["is_owner"] else None
    context.update(scrim_views.bot_page_part(request, bot))
    context["blunders"] = caching.fragment(
        blunders.cache_name(bot), caching.bot_analyses_scope(bot.pk), lambda: blunders.worst(bot)
    )
    context.update(test_views.bot_page_part(request, bot))
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
@throttled("upload", "ARENA_UPLOADS_PER_HOUR", per_user, UPLOADS_REFUSED, count_refused=False)
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
    context.update(test_views.bot_page_part(request, bot))
    return render(request, "arena/bot.html", context, status=400)


def user_page(request: HttpRequest, username: str) -> HttpResponse:
    """An owner's bots with their game, ladder version, Elo and rank on that game's ladder."""
    owner = get_object_or_404(get_user_model(), username=username)
    # Rank as the leaderboard counts it: 1 + the game's ladder bots whose version is rated higher (ties share a rank).
    higher = (
        Rating.objects.filter(
            game=OuterRef("game"),
            elo__gt=OuterRef("active_version__rating__elo") + TIE_ELO,
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
    # co-op bots are rated per season and team size, not on an Elo ladder of their game
    coop = [(bot, results) for bot in page if (results := coop_results.season_results(bot)) is not None]
    return render(request, "arena/user.html", {"owner": owner, "page": page, "coop": coop})


@require_POST
@login_required
@with_bot(owner_only=True)
def new_scrim(request: HttpRequest, bot: Bot) -> HttpResponse:
    form = scrim_views.ScrimForm(request.POST, bot=bot)
    if form.is_valid():
        try:
            scrim = scrims.request_scrim(request.user, bot, form.cleaned_data["opponent"], form.cleaned_data["games"])
        except scrims.ScrimRefused as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Scrim asked for: {scrim.games} games against {scrim.opponent.full_name}.")
            return redirect(scrim)
    context = bot_pages.page_context(request, bot)
    context["form"] = NewVersionForm()
    context.update(scrim_views.bot_page_part(request, bot, form))
    context.update(test_views.bot_page_part(request, bot))
    return render(request, "arena/bot.html", context, status=400)


@require_POST
@login_required
@with_bot(owner_only=True)
def new_version_test(request: HttpRequest, bot: Bot) -> HttpResponse:
    form = test_views.VersionTestForm(request.POST, bot=bot)
    if form.is_valid():
        try:
            test = form.start(request.user)
        except version_tests.TestRefused as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Test {test.pk} started: {test.version.label} against {test.base_version}.")
            return redirect(test)
    context = bot_pages.page_context(request, bot)
    context["form"] = NewVersionForm()
    context.update(scrim_views.bot_page_part(request, bot))
    context.update(test_views.bot_page_part(request, bot, form))
    return render(request, "arena/bot.html", context, status=400)
