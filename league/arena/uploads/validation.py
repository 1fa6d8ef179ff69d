"""Validation matches, queued fairly: each user has at most ARENA_VALIDATIONS_IN_FLIGHT_PER_USER versions in validation.

A new (or revalidated) version plays ARENA_VALIDATION_GAMES games on duplicate deals against each house bot of
ARENA_VALIDATION_OPPONENTS (house:random and house:greedy: one match each, so two workers can play them at once).
Its first forfeit fails it, naming that game; it is active once every one of its matches ended without one
(bench.validation measures how many games catch the known broken bots).

A version is `validating` at once; its validation matches are created and sent to the validation queue only while
its owner has fewer versions in flight than the cap, oldest version first. The rest wait in the database, and
each finished validation releases the owner's next (signal `validation_finished`); the sweeper releases whatever a
lost signal left waiting. So one user's 200 uploads delay only that user's validations.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.db.models import QuerySet
from django.dispatch import receiver
from django.urls import reverse
from django.utils.text import Truncator

from bots.reply_bounds import storable_text
from league.arena import notifications, queue
from league.arena.lib import caching, seeds, signals
from league.arena.models import FORFEITS, Bot, BotVersion, Game, Match, MatchEntry
from league.arena.play import events
from league.arena.play.results import STDERR_TAIL_CHARS
from league.arena.uploads.house import house_version

UNFINISHED = [Match.Status.QUEUED, Match.Status.RUNNING]


def _candidates(owner_id: int) -> QuerySet:
    """The owner's entries as the candidate (index 0) of an unfinished validation match."""
    return MatchEntry.objects.filter(
        index=0, match__kind=Match.Kind.VALIDATION, match__status__in=UNFINISHED, version__bot__owner_id=owner_id
    )


def waiting(owner_id: int) -> QuerySet:
    """The owner's validating versions whose validation match is not queued yet, oldest first; those of bots the
    staff disabled (or of a disabled account) wait until they are enabled again."""
    return (
        BotVersion.objects.filter(bot__owner_id=owner_id, status=BotVersion.Status.VALIDATING)
        .filter(bot__in=Bot.objects.allowed())
        .exclude(pk__in=_candidates(owner_id).values("version_id"))
        .select_related("bot")
        .order_by("created", "pk")
    )


@transaction.atomic
def release(owner_id: int) -> list[Match]:
    """Queue validation matches for the owner's waiting versions while fewer than the cap are in flight."""
    # The owner's lock (also taken by uploads) keeps two releases from both filling the last free place.
    get_user_model().objects.select_for_update().filter(pk=owner_id).first()
    in_flight = _candidates(owner_id).values("version_id").distinct().count()
    free = settings.ARENA_VALIDATIONS_IN_FLIGHT_PER_USER - in_flight
    released = []
    for version in waiting(owner_id)[: max(free, 0)]:
        for match in queue_validation(version):
            queue.play_validation(match.pk)
            released.append(match)
    return released


def queue_validation(version: BotVersion) -> list[Match]:
    """The validation matches of a new version (index 0), one against each house opponent (index 1)."""
    game = version.bot.game
    owner = version.bot.owner_id
    transaction.on_commit(lambda: caching.bump(caching.own_validations_scope(owner)))  # the API's cached list
    return [
        Match.objects.create_with_entries(
            [version, house_version(ref, game)],
            kind=Match.Kind.VALIDATION,
            game=game,
            games=settings.ARENA_VALIDATION_GAMES,
            players=2,
            seed=seeds.derived_seed(f"validate-{version.sha256}-{ref}"),
            duplicate=True,
            turn_seconds=settings.ARENA_TURN_SECONDS,
            bank_seconds=settings.ARENA_BANK_SECONDS,
            startup_seconds=settings.ARENA_STARTUP_SECONDS,
            rated=False,
        )
        for ref in settings.ARENA_VALIDATION_OPPONENTS
    ]


def current_matches(version: BotVersion) -> QuerySet:
    """The matches of the version's latest validation (one per opponent, created together), newest first."""
    round_size = len(settings.ARENA_VALIDATION_OPPONENTS)
    ids = list(
        Match.objects.filter(kind=Match.Kind.VALIDATION, entries__version=version, entries__index=0)
        .order_by("-pk")
        .values_list("pk", flat=True)[:round_size]
    )
    return Match.objects.filter(pk__in=ids).order_by("-pk")


def failed_game(version: BotVersion) -> Game | None:
    """The validation game the version failed in: the first game of its latest validation that it forfeited."""
    forfeited = (
        Game.objects.filter(match__in=current_matches(version), termination__in=list(FORFEITS))
        .filter(seats__version=version, seats__seat=models.F("fault_seat"))
        .defer("log_zlib")
        .order_by("played_at", "match_id", "index")
    )
    return forfeited.first()


def release_all() -> int:
    """Release every user's waiting validations (the sweeper's catch-all); how many matches were queued."""
    owners = (
        BotVersion.objects.filter(status=BotVersion.Status.VALIDATING)
        .exclude(kind=BotVersion.Kind.HOUSE)
        .values_list("bot__owner_id", flat=True)
        .distinct()
    )
    return sum(len(release(owner_id)) for owner_id in set(owners))


@receiver(signals.validation_finished)
def _release_next(sender: object, owner_id: int, **kwargs: object) -> None:
    release(owner_id)


@receiver(signals.validation_finished)
def _tell_the_owner(sender: object, owner_id: int, version_id: int | None = None, **kwargs: object) -> None:
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first() if version_id else None
    if version is not None and version.status != BotVersion.Status.VALIDATING:
        tell_verdict(version)


def tell_verdict(version: BotVersion) -> None:
    """Tell the owner that `version` passed or failed its validation (once per verdict), linking to its versions
    or to the game it failed in."""
    bot = version.bot
    url = reverse("bot", args=[bot.pk]) + "#versions"
    key = f"verdict:{version.pk}:{version.validated_at.timestamp() if version.validated_at else 0:.0f}"
    if version.status == BotVersion.Status.ACTIVE:
        where = (
            "plays on the ladder" if bot.retired_at is None else "is ready: bring the bot back to play on the ladder"
        )
        text = f"{bot.name} {version.label} passed its validation and {where}."
        notifications.notify(bot.owner_id, notifications.Kind.VERSION_VALIDATED, text, url, key=key)
    else:
        reason = (version.failure_reason.strip().splitlines() or ["no reason was given"])[0]
        text = f"{bot.name} {version.label} failed its validation: {Truncator(reason).chars(300)}"
        game = failed_game(version)
        if game is not None:
            url = reverse("game", args=[game.pk])
        notifications.notify(bot.owner_id, notifications.Kind.VERSION_FAILED, text, url, key=key)


def judge(version: BotVersion, result: Any, opponent: BotVersion | None = None) -> None:
    """Failed at the candidate's (bot index 0) first forfeit in this match; active once every match of its
    validation is done without one."""
    for game_result in result.games:
        outcome = game_result.outcome
        if outcome.termination.value not in FORFEITS or outcome.seat is None:
            continue
        if game_result.seat_bots[outcome.seat] != 0:
            continue
        against = f" against {opponent.bot.full_name}" if opponent is not None else ""
        reason = storable_text(
            f"game {game_result.index + 1} of {len(result.games)}{against}: "
            f"{outcome.termination.value}: {outcome.detail}"
        )
        stderr = storable_text((result.stderr or {}).get(0, ""), STDERR_TAIL_CHARS, tail=True)
        version.mark_validated(False, reason, stderr)
        return
    # The version's row lock orders two matches stored at once: the later one sees the earlier one done.
    BotVersion.objects.select_for_update().filter(pk=version.pk).first()
    if not current_matches(version).exclude(status=Match.Status.DONE).exists():
        version.mark_validated(True)


@receiver(events.match_stored)
def _judge_stored(sender: object, match: Match, versions: list[BotVersion], result: Any, **kwargs: object) -> None:
    if match.kind == Match.Kind.VALIDATION:
        judge(versions[0], result, versions[1] if len(versions) > 1 else None)


@receiver(events.match_failed)
def _fail_unplayable(sender: object, match: Match, versions: list[BotVersion], reason: str, **kwargs: object) -> None:
    """A validation the server could not run fails its version, so that it is never left validating."""
    if match.kind == Match.Kind.VALIDATION:
        versions[0].mark_validated(False, f"the server could not run the validation games: {reason}")
