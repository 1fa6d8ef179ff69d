"""Starting a tournament (freeze versions, queue every match) and finishing it once every match is over."""

from __future__ import annotations

import logging
from itertools import combinations

from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from league.arena import queue
from league.arena.lib import seeds, signals
from league.arena.models import Match, Tournament, TournamentEntry
from league.arena.play import events
from league.arena.tournaments import coop as coop_tournaments

log = logging.getLogger(__name__)


class TournamentError(ValueError):
    """The tournament cannot start; the message says why."""


def start(tournament_id: int) -> list[Match]:
    """Freeze each participant's ladder version (its newest active one) and queue all matches; [] if already started.

    Participants not on the ladder at that moment (no active version; retired or disabled) are left out (their
    entry keeps no version).
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.status != Tournament.Status.DRAFT:
            return []
        tournament.clean()
        entries = list(tournament.entries.select_related("bot__active_version", "bot__owner").order_by("pk"))
        playing: list[TournamentEntry] = []
        for entry in entries:
            if entry.bot.game != tournament.game:
                raise TournamentError(f"{entry.bot} plays {entry.bot.get_game_display()}, not {tournament.game}")
            entry.version = entry.bot.active_version if entry.bot.is_on_ladder else None
            entry.save(update_fields=["version"])
            if entry.version is not None:
                playing.append(entry)
        if len(playing) < 2:
            raise TournamentError(
                f"{tournament} needs at least two participants with an active version, neither retired nor "
                f"disabled; it has {len(playing)}"
            )
        Tournament.objects.filter(pk=tournament.pk).update(
            status=Tournament.Status.RUNNING, started_at=timezone.now(), registration_open=False
        )
        planned = coop_tournaments.plan(tournament, [e.version for e in playing]) if tournament.is_coop else []
        for round_index in range(0 if tournament.is_coop else tournament.pairing_rounds):
            for first, second in combinations(playing, 2):
                a, b = (first, second) if round_index == 0 else (second, first)
                match = Match(
                    kind=Match.Kind.TOURNAMENT,
                    game=tournament.game,
                    tournament=tournament,
                    games=tournament.games_per_pairing,
                    seed=seeds.derived_seed(
                        f"tournament-{tournament.pk}-{a.version.sha256}-{b.version.sha256}-{round_index}"
                    ),
                    duplicate=tournament.duplicate,
                    turn_seconds=tournament.turn_seconds,
                    bank_seconds=tournament.bank_seconds,
                    startup_seconds=tournament.startup_seconds,
                    rated=True,
                )
                planned.append((match, [a.version, b.version]))
        stored = Match.objects.bulk_create_with_entries(planned)
        for match in stored:
            queue.play_match(match.pk)
        signals.send_tournament_changed(tournament.pk)
    log.info("tournament %s started: %d matches queued", tournament_id, len(stored))
    return stored


def start_due() -> int:
    """Start every tournament whose scheduled time has come; returns how many started."""
    started = 0
    due = Tournament.objects.filter(status=Tournament.Status.DRAFT, scheduled_at__lte=timezone.now())
    for pk in due.values_list("pk", flat=True):
        try:
            if start(pk):
                started += 1
        except TournamentError as error:
            log.error("scheduled tournament %s cannot start: %s", pk, error)
    return started


def finish_if_done(tournament_id: int) -> bool:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    return tournament is not None and tournament.mark_finished_if_done()


def finish_all_done() -> int:
    """Finish every running tournament whose matches are all over (a lost finish_tournament task's work)."""
    unfinished = Match.objects.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).values("tournament_id")
    over = Tournament.objects.filter(status=Tournament.Status.RUNNING).exclude(pk__in=unfinished)
    finished = [tournament.pk for tournament in over if tournament.mark_finished_if_done()]
    for pk in finished:
        log.warning("tournament %s: all its matches were over but it was still running; finished now", pk)
    return len(finished)


@receiver(events.match_stored)
@receiver(events.match_failed)
def _one_match_over(sender: object, match: Match, **kwargs: object) -> None:
    """A tournament's match was stored (its table changed) or failed for good: finish it if it was the last."""
    if match.tournament_id:
        signals.send_tournament_changed(match.tournament_id)
        queue.finish_tournament(match.tournament_id)
