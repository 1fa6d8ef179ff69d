"""An owner's actions on one version of their bot: prune its upload, validate it again."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from league.arena.models import Bot
from league.arena.uploads import versions
from league.arena.web.decorators import with_bot


@require_POST
@login_required
@with_bot(owner_only=True)
def prune_version(request: HttpRequest, bot: Bot, number: int) -> HttpResponse:
    version = get_object_or_404(bot.versions, number=number)
    try:
        versions.prune(version)
    except versions.NotAllowed as error:
        messages.error(request, f"{bot.name} {version.label} was not pruned: {error}.")
    else:
        messages.success(request, f"{bot.name} {version.label} is pruned: its upload is deleted, its games stay.")
    return redirect(bot)


@require_POST
@login_required
@with_bot(owner_only=True)
def revalidate_version(request: HttpRequest, bot: Bot, number: int) -> HttpResponse:
    version = get_object_or_404(bot.versions, number=number)
    try:
        versions.revalidate(version)
    except versions.NotAllowed as error:
        messages.error(request, f"{error}.")
    else:
        messages.success(request, f"{bot.name} {version.label} is being validated again.")
    return redirect(bot)
