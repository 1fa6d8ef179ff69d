"""What staff do to a tournament besides starting it: fill it, open or close registration, cancel it, re-run
its failed matches; and what an owner does while registration is open: enter a bot.

Cancelling withdraws every queued or running match in one conditional UPDATE that also drops the claim token, so a
worker still playing one of them loses its claim: its heartbeat and its final store (both guarded by the token, see
`Match.claim`) fail and nothing of that run is written. Finished matches stay, as the record of what was played.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from league.arena import queue
from league.arena.lib import signals
from league.arena.models import Bot, Match, Tournament, TournamentEntry

log = logging.getLogger(__name__)

UNFINISHED = [Match.Status.QUEUED, Match.Status.RUNNING]


class NotAllowed(ValueError):
    """The operation does not apply to the tournament now; the message says why."""


def _locked(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


def eligible_bots(game: str):
    """The bots that may enter a tournament of `game`: that game's bots on the ladder (active, not retired or
    disabled)."""
    return Bot.objects.on_ladder().filter(game=game).select_related("owner")


@transaction.atomic
def add_all_active(tournament_id: int) -> int:
    """Enter every bot of the tournament's game that has an active version; how many were added."""
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.DRAFT:
        raise NotAllowed(f"{tournament} has {tournament.get_status_display()}: its entrants are fixed")
    entered = tournament.entries.values("bot_id")
    new = [
        TournamentEntry(tournament=tournament, bot=bot)
        for bot in eligible_bots(tournament.game).exclude(pk__in=entered)
    ]
    TournamentEntry.objects.bulk_create(new)
    signals.send_tournament_changed(tournament.pk)
    return len(new)


@transaction.atomic
def set_registration(tournament_id: int, open_: bool) -> None:
    """Open or close registration (owners entering their own bots); only before the tournament starts."""
    tournament = _locked(tournament_id)
    if open_ and tournament.status != Tournament.Status.DRAFT:
        raise NotAllowed(f"{tournament} has started: registration cannot open again")
    Tournament.objects.filter(pk=tournament.pk).update(registration_open=open_)
    signals.send_tournament_changed(tournament.pk)


@transaction.atomic
def enter(tournament_id: int, bot: Bot) -> TournamentEntry:
    """An owner enters one of their bots while registration is open."""
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.DRAFT or not tournament.registration_open:
        raise NotAllowed(f"registration for {tournament} is closed")
    if bot.game != tournament.game:
        raise NotAllowed(f"{bot.name} plays {bot.get_game_display()}, not {tournament.get_game_display()}")
    if bot.active_version_id is None:
        raise NotAllowed(f"{bot.name} has no active version yet")
    if not Bot.objects.on_ladder().filter(pk=bot.pk).exists():
        raise NotAllowed(f"{bot.name} is retired or disabled: it cannot enter tournaments")
    entry, created = TournamentEntry.objects.get_or_create(tournament=tournament, bot=bot)
    if not created:
        raise NotAllowed(f"{bot.name} is already entered")
    signals.send_tournament_changed(tournament.pk)
    return entry


@transaction.atomic
def cancel(tournament_id: int) -> int:
    """Cancel a tournament that has not finished; its unfinished matches are withdrawn (how many)."""
    tournament = _locked(tournament_id)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.RUNNING):
        raise NotAllowed(f"{tournament} has {tournament.get_status_display()}: there is nothing to cancel")
    now = timezone.now()
    withdrawn = tournament.matches.filter(status__in=UNFINISHED).update(
        status=Match.Status.CANCELLED,
        claim_token=None,
        games_done=0,  # whatever a worker had played of it is not stored: the pages count nothing of it
        error="withdrawn: the tournament was cancelled",
        finished_at=now,
    )
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.CANCELLED, registration_open=False, finished_at=now
    )
    signals.send_tournament_changed(tournament.pk)
    log.info("tournament %s cancelled: %d matches withdrawn", tournament_id, withdrawn)
    return withdrawn


@transaction.atomic
def rerun_failed(tournament_id: int) -> int:
    """Queue again the tournament's failed matches (a failed match stored nothing); a finished one runs again."""
    tournament = _locked(tournament_id)
    if tournament.status not in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
        raise NotAllowed(f"{tournament} has {tournament.get_status_display()}: only a started one has failed matches")
    failed = list(tournament.matches.filter(status=Match.Status.FAILED).values_list("pk", flat=True))
    if not failed:
        raise NotAllowed(f"{tournament} has no failed matches")
    Match.objects.filter(pk__in=failed, status=Match.Status.FAILED).update(
        status=Match.Status.QUEUED,
        claim_token=None,
        claimed_by="",
        attempts=0,
        games_done=0,
        error="",
        queued_at=timezone.now(),
        started_at=None,
        heartbeat_at=None,
        finished_at=None,
    )
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING, finished_at=None)
    for pk in failed:
        queue.play_match(pk)
    signals.send_tournament_changed(tournament.pk)
    log.info("tournament %s: %d failed matches queued again", tournament_id, len(failed))
    return len(failed)
