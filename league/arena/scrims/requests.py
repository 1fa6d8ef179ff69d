"""Scrims: an owner's request for unrated games of its bot against another active bot of the same game.

`request_scrim` checks and records a request (`MatchRequest`) within the owner's daily quota; nothing is queued
yet. `release` turns waiting requests into matches of at most CHUNK_GAMES games on the scrim queue, and only
while the league has nothing better to do: Redis does not prioritise one queue over another, so "below the
ladder, tournaments, validations and version tests" is kept here instead. A release happens when no more than
ARENA_SCRIM_MAX_BACKLOG of those matches wait to be played, and puts at most ARENA_SCRIM_IN_FLIGHT scrim matches
(one per requester, oldest request first) on the queue at a time. Beat calls it every ARENA_SCRIM_INTERVAL
seconds; a new request and a finished scrim match call it at once.

The games are stored like any other (public, with replays) but unrated: they never reach `PairResult`, the
ratings or the leaderboards. The request itself, its state and its summary are for its owner and staff.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Exists, F, Min, OuterRef, Q, QuerySet, Sum
from django.dispatch import receiver
from django.utils import timezone

from league.arena import notifications, queue
from league.arena.lib import quotas, seeds
from league.arena.models import (
    COMPETITIVE_GAMES,
    GAME_NAMES,
    Bot,
    Game,
    Match,
    MatchEntry,
    MatchRequest,
    ScheduleLock,
)
from league.arena.play import events, wording

MAX_GAMES = 100  # per request
CHUNK_GAMES = 10  # per match: a dead worker loses little, and a long scrim never holds a worker for long
# the work scrims wait behind: version tests too
WAITING_KINDS = [Match.Kind.LADDER, Match.Kind.TOURNAMENT, Match.Kind.VALIDATION, Match.Kind.TEST]
PENDING = [Match.Status.QUEUED, Match.Status.RUNNING]
LOCK = "scrims"  # the ScheduleLock row one releaser at a time holds


class ScrimRefused(Exception):
    """A request that cannot be made; the message says why, in words for its owner."""


class QuotaExceeded(ScrimRefused, quotas.OverQuota):
    """Past the daily scrim games (`ARENA_SCRIM_GAMES_PER_DAY`); `retry_at` is when more may be asked for."""


def opponents(bot: Bot) -> QuerySet[Bot]:
    """The bots `bot` may scrim against: every other bot of its game on the ladder, by owner and name."""
    return (
        Bot.objects.on_ladder()
        .filter(game=bot.game)
        .exclude(pk=bot.pk)
        .select_related("owner")
        .order_by("owner__username", "name")
    )


def games_asked(user_id: int, now: datetime | None = None) -> int:
    """Scrim games `user_id` asked for in the last 24 hours."""
    return quotas.used(MatchRequest.objects.filter(requester_id=user_id), now or timezone.now(), amount="games")


def games_left(user_id: int) -> int:
    """Scrim games `user_id` may still ask for now."""
    return max(0, settings.ARENA_SCRIM_GAMES_PER_DAY - games_asked(user_id))


def request_scrim(user: AbstractBaseUser, bot: Bot, opponent: Bot, games: int) -> MatchRequest:
    """Record `user`'s request for `games` games of `bot`'s active version against `opponent`'s.

    Raises ScrimRefused (QuotaExceeded for the quota) naming what is wrong; nothing is written then.
    """
    if bot.owner_id != user.pk:
        raise ScrimRefused(f"only {bot.owner.username} can ask for scrims of {bot.full_name}")
    if bot.game not in COMPETITIVE_GAMES:
        raise ScrimRefused(f"scrims are for {', '.join(GAME_NAMES[g] for g in sorted(COMPETITIVE_GAMES))}")
    if opponent.pk == bot.pk:
        raise ScrimRefused("a bot cannot scrim against itself; choose another opponent")
    if opponent.game != bot.game:
        raise ScrimRefused(f"{opponent.full_name} plays {GAME_NAMES[opponent.game]}, not {GAME_NAMES[bot.game]}")
    if not 1 <= games <= MAX_GAMES:
        raise ScrimRefused(f"ask for 1 to {MAX_GAMES} games, not {games}")
    with transaction.atomic():
        # One request at a time per user, so two at once cannot both fit in the quota's last games.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        mine = Bot.objects.filter(pk=bot.pk).values_list("active_version", flat=True).first()
        theirs = Bot.objects.filter(pk=opponent.pk).values_list("active_version", flat=True).first()
        if mine is None:
            raise ScrimRefused(f"{bot.full_name} has no active version yet: upload one and wait for its validation")
        if theirs is None:
            raise ScrimRefused(f"{opponent.full_name} has no active version")
        refusal = _unplayable(bot, opponent)
        if refusal:
            raise ScrimRefused(refusal)
        _check_quota(user.pk, games)
        scrim = MatchRequest.objects.create(
            requester_id=user.pk,
            bot=bot,
            version_id=mine,
            opponent=opponent,
            opponent_version_id=theirs,
            games=games,
        )
        queue.release_scrims()
    return scrim


def _check_quota(user_id: int, games: int) -> None:
    now = timezone.now()
    limit = settings.ARENA_SCRIM_GAMES_PER_DAY
    if limit == 0:
        raise ScrimRefused("scrims are turned off on this server (ARENA_SCRIM_GAMES_PER_DAY is 0)")
    asked = games_asked(user_id, now)
    left = max(0, limit - asked)
    quotas.check(
        limit,
        asked,
        games,
        MatchRequest.objects.filter(requester_id=user_id),
        now,
        lambda retry_at: QuotaExceeded(
            f"you may ask for {limit} scrim games in 24 hours and have asked for {asked}; {left} left now, "
            f"so {games} is too many (more from {retry_at:%Y-%m-%d %H:%M} UTC)",
            retry_at,
        ),
    )


# --- Releasing waiting requests as matches -------------------------------------------------------------------


def backlog() -> int:
    """Ladder, tournament, validation and version test matches waiting for a worker: while they wait, scrims do too."""
    return Match.objects.filter(kind__in=WAITING_KINDS, status=Match.Status.QUEUED).count()


def release() -> list[Match]:
    """Put the next scrim matches on their queue if the league has room; the matches queued."""
    with transaction.atomic():
        ScheduleLock.objects.get_or_create(game=LOCK)
        ScheduleLock.objects.select_for_update().get(game=LOCK)
        if backlog() > settings.ARENA_SCRIM_MAX_BACKLOG:
            return []
        in_flight = Match.objects.filter(kind=Match.Kind.SCRIM, status__in=PENDING)
        room = settings.ARENA_SCRIM_IN_FLIGHT - in_flight.count()
        if room <= 0:
            return []
        busy = set(in_flight.values_list("match_request__requester_id", flat=True))
        planned = []
        for requester_id in _next_requesters(busy, room):
            scrim = _waiting().filter(requester_id=requester_id).first()  # that requester's oldest
            if scrim is not None and _still_playable(scrim):
                planned.append(scrim)
        queued = Match.objects.bulk_create_with_entries(
            [(_next_match(scrim), [scrim.version, scrim.opponent_version]) for scrim in planned]
        )
        for scrim, match in zip(planned, queued, strict=True):
            MatchRequest.objects.filter(pk=scrim.pk).update(released=F("released") + match.games)
            queue.play_scrim(match.pk)
    return queued


def _waiting() -> QuerySet[MatchRequest]:
    """Requests with games not yet released, no match of theirs pending, nothing failed; oldest first."""
    pending = Match.objects.filter(match_request=OuterRef("pk"), status__in=PENDING)
    failed = Match.objects.filter(match_request=OuterRef("pk"), status=Match.Status.FAILED)
    return (
        MatchRequest.objects.filter(released__lt=F("games"), error="")
        .exclude(Exists(pending))
        .exclude(Exists(failed))
        .select_related("bot__owner", "opponent__owner", "version", "opponent_version")
        .order_by("created", "pk")
    )


def _next_requesters(busy: set[int], room: int) -> list[int]:
    """Up to `room` requesters with nothing in flight, whose oldest waiting request is oldest: one request per user
    at a time, so a user with many requests never holds back everybody else's."""
    oldest = (
        _waiting()
        .exclude(requester_id__in=busy)
        .order_by()
        .values("requester_id")
        .annotate(first=Min("created"))
        .order_by("first", "requester_id")
    )
    return [row["requester_id"] for row in oldest[:room]]


def _unplayable(bot: Bot, opponent: Bot) -> str | None:
    """Why these two cannot play a scrim now: the staff disabled one, or the opponent left the ladder."""
    for side in (bot, opponent):
        if not Bot.objects.allowed().filter(pk=side.pk, active_version__isnull=False).exists():
            return f"{side.full_name} no longer has an active version or was disabled"
    if not Bot.objects.on_ladder().filter(pk=opponent.pk).exists():
        return f"{opponent.full_name} has left the ladder (retired or disabled)"
    return None


def _still_playable(scrim: MatchRequest) -> bool:
    """False (and the request stopped, saying why, its owner told) once either bot has left the league."""
    refusal = _unplayable(scrim.bot, scrim.opponent)
    if refusal:
        MatchRequest.objects.filter(pk=scrim.pk).update(error=refusal)
        tell_if_finished(scrim.pk)
        return False
    return True


def _next_match(scrim: MatchRequest) -> Match:
    return Match(
        kind=Match.Kind.SCRIM,
        game=scrim.bot.game,
        match_request=scrim,
        games=min(CHUNK_GAMES, scrim.games - scrim.released),
        seed=seeds.random_seed(),
        duplicate=True,
        turn_seconds=settings.ARENA_TURN_SECONDS,
        bank_seconds=settings.ARENA_BANK_SECONDS,
        startup_seconds=settings.ARENA_STARTUP_SECONDS,
        rated=False,
    )


# --- What the owner sees ---------------------------------------------------------------------------------------


class State:
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CHOICES = [(QUEUED, "queued"), (RUNNING, "running"), (DONE, "done"), (FAILED, "failed")]


@dataclass
class Progress:
    state: str
    played: int
    wins: int
    losses: int
    draws: int
    reason: str  # why it failed, for the owner

    @property
    def finished(self) -> bool:
        return self.state in (State.DONE, State.FAILED)


def attach_progress(scrims: Iterable[MatchRequest]) -> None:
    """Set `progress` (a Progress) and `result` (the score in words) on each request, in two queries."""
    scrims = list(scrims)
    if not scrims:
        return
    ids = [scrim.pk for scrim in scrims]
    matches = {
        row["match_request"]: row
        for row in Match.objects.filter(match_request__in=ids)
        .values("match_request")
        .annotate(
            pending=Count("pk", filter=Q(status__in=PENDING)),
            running=Count("pk", filter=Q(status=Match.Status.RUNNING)),
            failed=Count("pk", filter=Q(status=Match.Status.FAILED)),
            played=Sum("games_done", filter=Q(status__in=[Match.Status.DONE, Match.Status.RUNNING])),
        )
    }
    scores = {
        row["match__match_request"]: row
        for row in MatchEntry.objects.filter(match__match_request__in=ids, index=0, match__status=Match.Status.DONE)
        .values("match__match_request")
        .annotate(wins=Sum("wins"), losses=Sum("losses"), draws=Sum("draws"))
    }
    for scrim in scrims:
        found, score = matches.get(scrim.pk, {}), scores.get(scrim.pk, {})
        scrim.progress = _progress(scrim, found, score)
        scrim.result = result_words(scrim, scrim.progress)


def _progress(scrim: MatchRequest, matches: dict, score: dict) -> Progress:
    played = matches.get("played") or 0
    counts = (score.get("wins") or 0, score.get("losses") or 0, score.get("draws") or 0)
    if scrim.error:
        return Progress(State.FAILED, played, *counts, reason=scrim.error)
    if matches.get("failed"):
        reason = "the server could not play one of its matches (it gave up after retrying); the rest was not played"
        return Progress(State.FAILED, played, *counts, reason=reason)
    if scrim.released == scrim.games and not matches.get("pending"):
        return Progress(State.DONE, played, *counts, reason="")
    if matches.get("running") or played:
        return Progress(State.RUNNING, played, *counts, reason="")
    return Progress(State.QUEUED, played, *counts, reason="")


def result_words(scrim: MatchRequest, progress: Progress) -> str:
    """The score in words: "alice/ace beat bob/bee 6–4", "so far bob/bee leads alice/ace 3–1 after 4 of 10 games"."""
    mine, theirs = scrim.bot.full_name, scrim.opponent.full_name
    decided = progress.wins + progress.losses + progress.draws
    if not decided:
        return "no games played yet"
    drawn = f", {progress.draws} drawn" if progress.draws else ""
    high, low = max(progress.wins, progress.losses), min(progress.wins, progress.losses)
    if progress.finished:
        if progress.wins == progress.losses:
            return f"{mine} and {theirs} tied {high}–{low}{drawn}"
        winner, loser = (mine, theirs) if progress.wins > progress.losses else (theirs, mine)
        return f"{winner} beat {loser} {high}–{low}{drawn}"
    after = f" after {decided} of {scrim.games} games"
    if progress.wins == progress.losses:
        return f"so far {mine} and {theirs} are level {high}–{low}{drawn}{after}"
    leader, other = (mine, theirs) if progress.wins > progress.losses else (theirs, mine)
    return f"so far {leader} leads {other} {high}–{low}{drawn}{after}"


def games_of(scrim: MatchRequest) -> list[tuple]:
    """(game, names by seat, result in words) for every stored game of the request, in play order."""
    names = {scrim.version_id: scrim.bot.full_name, scrim.opponent_version_id: scrim.opponent.full_name}
    played = (
        Game.objects.filter(match__match_request=scrim)
        .defer("log_zlib", "detail")
        .prefetch_related("seats")
        .order_by("match_id", "index")
    )
    rows = []
    for game in played:
        seated = [names.get(seat.version_id, "?") for seat in game.seats.all()]
        words = wording.game_result(game.termination, game.winner_seat, game.fault_seat, game.score, seated)
        rows.append((game, seated, words))
    return rows


def tell_if_finished(scrim_id: int) -> bool:
    """Tell the requester their scrim is over (done, or stopped and why), once; True when it is over."""
    scrim = MatchRequest.objects.select_related("bot__owner", "opponent__owner").filter(pk=scrim_id).first()
    if scrim is None:
        return False
    attach_progress([scrim])
    progress = scrim.progress
    if not progress.finished:
        return False
    if progress.state == State.DONE:
        text = f"Scrim finished: {scrim.result} ({progress.played} game{'s' if progress.played != 1 else ''})."
    else:
        text = f"Scrim of {scrim.bot.full_name} against {scrim.opponent.full_name} stopped: {progress.reason}."
        if progress.played:
            text += f" After {progress.played} of {scrim.games} games: {scrim.result}."
    notifications.notify(
        scrim.requester_id, notifications.Kind.SCRIM_FINISHED, text, scrim.get_absolute_url(), key=f"scrim:{scrim.pk}"
    )
    return True


@receiver(events.match_stored)
def _release_after(sender: object, match: Match, **kwargs: object) -> None:
    if match.kind == Match.Kind.SCRIM:
        tell_if_finished(match.match_request_id)
        queue.release_scrims()  # the request's next games, at once if the league has room


@receiver(events.match_failed)
def _tell_failed(sender: object, match: Match, **kwargs: object) -> None:
    if match.kind == Match.Kind.SCRIM and match.match_request_id:
        tell_if_finished(match.match_request_id)
