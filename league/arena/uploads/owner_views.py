"""The owner's controls on a bot's page: rename and describe it, retire it or bring it back, its output public or
not and its lost games analysed or not, download an upload."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from league.arena.models import Bot
from league.arena.uploads import changes as bot_changes
from league.arena.uploads import versions
from league.arena.uploads.forms import BotEditForm
from league.arena.web.decorators import sees_private, with_bot


@login_required
@with_bot(owner_only=True)
def edit_bot(request: HttpRequest, bot: Bot) -> HttpResponse:
    form = BotEditForm(request.POST or None, initial={"name": bot.name, "description": bot.description})
    if request.method == "POST" and form.is_valid():
        try:
            bot_changes.edit(bot, name=form.cleaned_data["name"], description=form.cleaned_data["description"])
        except bot_changes.ChangeRefused as error:
            form.add_error(error.field, str(error))
        else:
            messages.success(request, f"{bot.name} is saved.")
            return redirect(bot)
    status = 400 if request.method == "POST" else 200
    return render(request, "arena/edit_bot.html", {"bot": bot, "form": form}, status=status)


@require_POST
@login_required
@with_bot(owner_only=True)
def retire_bot(request: HttpRequest, bot: Bot) -> HttpResponse:
    if bot_changes.retire(bot):
        messages.success(request, f"{bot.name} is retired: it left the ladder; its games stay.")
    else:
        messages.error(request, f"{bot.name} was already retired.")
    return redirect(bot)


@require_POST
@login_required
@with_bot(owner_only=True)
def unretire_bot(request: HttpRequest, bot: Bot) -> HttpResponse:
    if not bot_changes.unretire(bot):
        messages.error(request, f"{bot.name} was not retired.")
    elif bot.disabled_at is not None:
        messages.success(request, f"{bot.name} is no longer retired, but stays off the ladder: the staff disabled it.")
    else:
        messages.success(request, f"{bot.name} is back on the ladder.")
    return redirect(bot)


@require_POST
@login_required
@with_bot(owner_only=True)
def bot_options(request: HttpRequest, bot: Bot) -> HttpResponse:
    """The owner's choices for the bot's games: its per-turn output public, its lost rated games analysed."""
    chosen = {name: request.POST.get(name) == "on" for name in ("output_public", "analyse_losses")}
    bot_changes.edit(bot, **chosen)
    shown = "everyone sees" if bot.output_public else "only you see"
    analysed = "are analysed" if bot.analyse_losses else "are analysed only when someone asks"
    messages.success(request, f"Saved: {shown} what {bot.name} writes in its turns; its lost rated games {analysed}.")
    return redirect(bot)


@with_bot()
def download_version(request: HttpRequest, bot: Bot, number: int) -> HttpResponse:
    """A version's upload as it was sent: for its owner and staff; a 404 for everyone else, as if it did not exist."""
    if not sees_private(request.user, bot.owner_id):
        raise Http404("no such upload")
    version = get_object_or_404(bot.versions, number=number)
    try:
        upload = versions.download(version)
    except versions.NotAllowed as error:
        raise Http404(str(error)) from None
    return upload.as_attachment()
