"""Changes to a bot after its creation: its owner renames it, describes it, retires it or brings it back; the staff
disable a bot or a whole account. The site's pages, the API and the admin all call these functions.

A bot leaves the ladder when it is retired, disabled, or its owner's account is disabled (`ladder_condition` in
models.py says so once for every part of the league). Leaving withdraws its ladder matches not started yet (deleted:
they have no games, and a co-op season plans the same deals afresh if the bot comes back); matches already playing
finish and are stored, and every game it played stays in history, replayable. Tournaments that have started keep
their frozen entrants; one not started yet leaves the bot out when it starts. What the staff disable also has its
new versions' validations held back (no more of its code runs) until they enable it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from league.arena.lib import signals
from league.arena.models import BOT_NAME_RULE, Bot, Match, TournamentEntry
from league.arena.uploads import validation as validations
from league.arena.uploads.house import HOUSE_USER

DESCRIPTION_CHARS = Bot._meta.get_field("description").max_length
REASON_CHARS = Bot._meta.get_field("disabled_reason").max_length


class ChangeRefused(ValueError):
    """The change cannot be made; `field` names the input at fault ("name", "description") or is None."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def name_refusal(bot: Bot, name: str) -> str | None:
    """Why `bot` cannot be called `name` (the rules of a new bot's name), or None when it can."""
    try:
        BOT_NAME_RULE(name)
    except ValidationError as error:
        return " ".join(error.messages)
    taken = Bot.objects.filter(owner_id=bot.owner_id, name__iexact=name).exclude(pk=bot.pk)
    if taken.exists():
        return f"You already have a bot called {name}."
    return None


@transaction.atomic
def edit(
    bot: Bot,
    *,
    name: str | None = None,
    description: str | None = None,
    output_public: bool | None = None,
    analyse_losses: bool | None = None,
) -> Bot:
    """Rename and/or describe the bot, make what it writes in each turn public or not, have its lost rated games
    analysed or not (None leaves a part as it is); ChangeRefused names what is wrong."""
    changed = []
    for field, value in (("output_public", output_public), ("analyse_losses", analyse_losses)):
        if value is not None and value != getattr(bot, field):
            setattr(bot, field, value)
            changed.append(field)
    if name is not None and name != bot.name:
        refusal = name_refusal(bot, name)
        if refusal:
            raise ChangeRefused(refusal, "name")
        bot.name = name
        changed.append("name")
    if description is not None and description != bot.description:
        if len(description) > DESCRIPTION_CHARS:
            raise ChangeRefused(
                f"A description may be {DESCRIPTION_CHARS} characters long; this one has {len(description)}.",
                "description",
            )
        bot.description = description
        changed.append("description")
    if not changed:
        return bot
    try:
        with transaction.atomic():
            bot.save(update_fields=changed)
    except IntegrityError:  # the same name taken at the same moment
        raise ChangeRefused(f"You already have a bot called {name}.", "name") from None
    if "name" in changed:
        _names_shown_elsewhere_changed([bot])
    return bot


def _names_shown_elsewhere_changed(bots: Iterable[Bot]) -> None:
    """Drop the cached ladders and tournament tables that show these bots (their names or their presence)."""
    bots = list(bots)
    for game in {bot.game for bot in bots}:
        signals.send_leaderboard_changed(game)
    entered = TournamentEntry.objects.filter(bot__in=bots).values_list("tournament_id", flat=True)
    for tournament_id in set(entered):
        signals.send_tournament_changed(tournament_id)


def withdraw_queued_matches(bots: Iterable[Bot], validations_too: bool = False) -> int:
    """Delete the queued (not yet started) ladder matches of these bots, and with `validations_too` the validation
    matches of their new versions; how many. A match a worker claims at the same moment is left to play (the row
    lock decides who was first)."""
    bots = list(bots)
    queued = Q(kind=Match.Kind.LADDER, entries__version__bot__in=bots)
    if validations_too:  # the candidate is entry 0; the house opponent's validations of other bots stay
        queued |= Q(kind=Match.Kind.VALIDATION, entries__index=0, entries__version__bot__in=bots)
    with transaction.atomic():
        ids = list(
            Match.objects.select_for_update()
            .filter(pk__in=Match.objects.filter(queued, status=Match.Status.QUEUED).values("pk"))
            .values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=ids, status=Match.Status.QUEUED).delete()
    return len(ids)


def _left_ladder(bots: list[Bot], stopped: bool = False) -> None:
    """What follows a bot leaving the ladder; `stopped` (the staff's doing) also holds back its validations."""
    withdraw_queued_matches(bots, validations_too=stopped)
    _names_shown_elsewhere_changed(bots)


def _allowed_again(bots: list[Bot]) -> None:
    """What follows the staff enabling bots again: their held-back validations resume, the ladders are redrawn."""
    for owner_id in {bot.owner_id for bot in bots}:
        validations.release(owner_id)
    _names_shown_elsewhere_changed(bots)


@transaction.atomic
def retire(bot: Bot) -> bool:
    """The owner takes the bot off the ladder; False when it was already retired."""
    retired = Bot.objects.filter(pk=bot.pk, retired_at__isnull=True).update(retired_at=timezone.now())
    bot.refresh_from_db(fields=["retired_at"])
    if retired:
        _left_ladder([bot])
    return bool(retired)


@transaction.atomic
def unretire(bot: Bot) -> bool:
    """The owner brings a retired bot back to the ladder (if nothing else keeps it off); False if not retired."""
    back = Bot.objects.filter(pk=bot.pk, retired_at__isnull=False).update(retired_at=None)
    bot.refresh_from_db(fields=["retired_at"])
    if back:
        _names_shown_elsewhere_changed([bot])
    return bool(back)


@transaction.atomic
def disable(bots: Iterable[Bot], reason: str = "") -> int:
    """The staff take bots off the ladder and refuse their new uploads; how many were not disabled already."""
    bots = list(bots)
    ids = [bot.pk for bot in bots]
    count = Bot.objects.filter(pk__in=ids, disabled_at__isnull=True).update(
        disabled_at=timezone.now(), disabled_reason=reason[:REASON_CHARS]
    )
    if count:
        _left_ladder(bots, stopped=True)
    return count


@transaction.atomic
def enable(bots: Iterable[Bot]) -> int:
    """Undo `disable`; how many were disabled."""
    bots = list(bots)
    count = Bot.objects.filter(pk__in=[bot.pk for bot in bots], disabled_at__isnull=False).update(
        disabled_at=None, disabled_reason=""
    )
    if count:
        _allowed_again(bots)
    return count


@transaction.atomic
def disable_users(users: Iterable[Any]) -> int:
    """The staff disable accounts: they can no longer log in or use their API tokens, and their bots leave the
    ladder (their games stay). How many were active."""
    ids = [user.pk for user in users]
    count = get_user_model().objects.filter(pk__in=ids, is_active=True).update(is_active=False)
    if count:
        owners_left(ids)
    return count


@transaction.atomic
def enable_users(users: Iterable[Any]) -> int:
    """Undo `disable_users`: the accounts log in again and their bots return to the ladder (unless retired or
    disabled themselves)."""
    ids = [user.pk for user in users]
    # The house bots' owner stays inactive: nobody logs in as "house".
    accounts = get_user_model().objects.filter(pk__in=ids, is_active=False).exclude(username=HOUSE_USER)
    count = accounts.update(is_active=True)
    if count:
        owners_returned(ids)
    return count


def owners_left(owner_ids: list[int]) -> None:
    """What follows accounts being disabled: their bots' queued ladder matches withdrawn, the ladders redrawn."""
    _left_ladder(list(Bot.objects.filter(owner_id__in=owner_ids)), stopped=True)


def owners_returned(owner_ids: list[int]) -> None:
    """What follows accounts being enabled again: their held-back validations resume, the ladders are redrawn."""
    _allowed_again(list(Bot.objects.filter(owner_id__in=owner_ids)))
