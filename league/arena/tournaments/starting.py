"""Starting a tournament (freeze versions, queue every match) and finishing it once every match is over."""

from __future__ import annotations

import logging
from collections import defaultdict
from itertools import combinations

from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from league.arena import notifications, queue
from league.arena.lib import seeds, signals
from league.arena.models import Match, Tournament, TournamentEntry
from league.arena.play import events, wording
from league.arena.tournaments import coop as coop_tournaments
from league.arena.tournaments import standings

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
    return tournament is not None and _finish(tournament)


def finish_all_done() -> int:
    """Finish every running tournament whose matches are all over (a lost finish_tournament task's work)."""
    unfinished = Match.objects.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).values("tournament_id")
    over = Tournament.objects.filter(status=Tournament.Status.RUNNING).exclude(pk__in=unfinished)
    finished = [tournament.pk for tournament in over if _finish(tournament)]
    for pk in finished:
        log.warning("tournament %s: all its matches were over but it was still running; finished now", pk)
    return len(finished)


def _finish(tournament: Tournament) -> bool:
    """Finish the tournament if its last match is over and, the one time it finishes, tell its entrants."""
    if not tournament.mark_finished_if_done():
        return False
    tell_entrants(tournament)
    return True


def tell_entrants(tournament: Tournament) -> int:
    """Tell each owner whose bots played where they placed (one notice per owner); how many owners were told."""
    if tournament.is_coop:
        order = [(row.version, _coop_score(row.score)) for row in coop_tournaments.table(tournament).standings]
    else:
        order = [(row.version, _points(row.points, row.games)) for row in standings.table(tournament).standings]
    placed: dict[int, list[str]] = defaultdict(list)
    for place, (version, score) in enumerate(order, start=1):
        placed[version.bot.owner_id].append(f"{version.bot.name} placed {ordinal(place)} of {len(order)} ({score})")
    for owner_id, places in placed.items():
        text = f"Tournament “{tournament.name}” finished: {'; '.join(places)}."
        key = f"tournament:{tournament.pk}"
        notifications.notify(owner_id, notifications.Kind.TOURNAMENT_FINISHED, text, tournament.get_absolute_url(), key)
    return len(placed)


def _points(points: float, games: int) -> str:
    return f"{wording.points(points)} point{'s' if points != 1 else ''} from {games} game{'s' if games != 1 else ''}"


def _coop_score(mean: float | None) -> str:
    return "no games" if mean is None else f"{mean:.1f} cards left on average"


def ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


@receiver(events.match_stored)
@receiver(events.match_failed)
def _one_match_over(sender: object, match: Match, **kwargs: object) -> None:
    """A tournament's match was stored (its table changed) or failed for good: finish it if it was the last.

    Only the match that finds no other open is worth a finish_tournament task; two last ones stored at once (each
    sees the other still open) are covered by the upkeep's finish_all_done a few seconds later.
    """
    if match.tournament_id:
        signals.send_tournament_changed(match.tournament_id)
        still_open = Match.objects.filter(
            tournament_id=match.tournament_id, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        ).exclude(pk=match.pk)
        if not still_open.exists():
            queue.finish_tournament(match.tournament_id)
