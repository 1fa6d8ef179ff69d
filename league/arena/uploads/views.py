"""An owner's list of bots and the upload of a new bot."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from league.arena.models import (
    Bot,
    BotVersion,
)
from league.arena.uploads.forms import NewBotForm
from league.arena.uploads.intake import NameTaken, UploadRejected, add_bot
from league.arena.web.decorators import per_user, throttled
from league.arena.web.pagination import paginate

BOTS_PER_PAGE = 50
UPLOADS_REFUSED = "You have uploaded as many bots and versions as one account may in an hour."


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
@throttled("upload", "ARENA_UPLOADS_PER_HOUR", per_user, UPLOADS_REFUSED, count_refused=False)
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


def validation_games() -> int:
    """How many games a new version's validation plays in all."""
    return settings.ARENA_VALIDATION_GAMES * len(settings.ARENA_VALIDATION_OPPONENTS)


def _uploaded(bot: Bot, number: int) -> str:
    # Shown once, above a versions table that keeps itself up to date: true before and after validation ends.
    return (
        f"{bot.name} v{number} is uploaded. It plays {validation_games()} validation games in the "
        "sandbox; its status in the versions table below follows them."
    )
