"""Playing one match on a worker: claim it, run it through the bots runner, store everything at once.

`play` is idempotent: a match that is finished, or being played by a live worker, is left alone;
one whose worker died (its heartbeat stopped) is claimed again and replayed from the start.
"""

from __future__ import annotations

import logging
import os
import socket
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import bots.match
from bots.match import BotSpec, MatchSpec, TimeControl
from league.arena import coop_results, queue, refits, results, signals
from league.arena.models import FORFEITS, BotUpload, BotVersion, Match
from league.arena.uploads import upload_limits

log = logging.getLogger(__name__)

STDERR_TAIL_CHARS = results.STDERR_TAIL_CHARS
HEARTBEAT_SECONDS = 1.0


class ClaimLost(Exception):
    """Another worker took the match over (this one was presumed dead); drop this run's results."""


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def bot_file(version: BotVersion) -> Path:
    """The version's upload as a file in this worker's cache, written once per content hash."""
    folder = Path(settings.ARENA_CACHE_DIR) / "bots"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{version.sha256}.{version.kind}"
    if not path.exists():
        content = bytes(BotUpload.objects.values_list("content", flat=True).get(version=version.pk))
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".upload-")
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)  # atomic: a concurrent reader sees the whole file or none
    return path


def seat_versions(match: Match, versions: list[BotVersion]) -> list[BotVersion]:
    """The version of each of the runner's bots: a co-op match of one entry and N players is a self-play team."""
    if match.game != "face-to-face" and len(versions) == 1 and (match.players or 1) > 1:
        return versions * match.players
    return versions


def match_spec(match: Match, versions: list[BotVersion]) -> MatchSpec:
    bots = []
    for version in seat_versions(match, versions):
        ref = version.bot.house_ref if version.kind == BotVersion.Kind.HOUSE else str(bot_file(version))
        bots.append(BotSpec(ref=ref, name=version.bot.full_name, version=version.version_id))
    return MatchSpec(
        game=match.game,
        bots=bots,
        games=match.games,
        seed=match.seed,
        players=None if match.game == "face-to-face" else (match.players or len(bots)),
        duplicate=match.duplicate,
        time_control=TimeControl(turn=match.turn_seconds, bank=match.bank_seconds, startup=match.startup_seconds),
        sandbox=settings.ARENA_SANDBOX,
        unpack_limits=upload_limits(),
        first_deal=match.first_deal,
    )


def lease() -> timedelta:
    return timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS)


def play(match_id: int, worker: str | None = None) -> bool:
    """Play the match if nobody else is; True when this call stored its results."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        log.warning("match %s does not exist (deleted?); nothing to play", match_id)
        return False
    token = match.claim(worker or worker_name(), lease())
    if token is None:
        return False
    versions = match.ordered_versions()
    played = 0
    last_beat = time.monotonic()

    def on_game(*_args: Any, **_kwargs: Any) -> None:
        # A heartbeat (and progress for the pages) at most every HEARTBEAT_SECONDS: fast games would
        # otherwise cost a database write each.
        nonlocal played, last_beat
        played += 1
        if time.monotonic() - last_beat < HEARTBEAT_SECONDS:
            return
        last_beat = time.monotonic()
        if not match.heartbeat(token, played):
            raise ClaimLost(f"match {match.pk} was taken over by another worker")

    try:
        result = bots.match.run_match(match_spec(match, versions), on_game=on_game)
    except ClaimLost:
        log.warning("match %s: claim lost while playing; another worker finishes it", match.pk)
        return False
    except Exception as error:
        _runner_broke(match, token, versions, error)
        raise
    try:
        store(match, token, versions, result)
    except ClaimLost:
        log.warning("match %s: claim lost before storing; another worker finishes it", match.pk)
        return False
    return True


def _runner_broke(match: Match, token: uuid.UUID, versions: list[BotVersion], error: Exception) -> None:
    """The runner itself failed (not a bot): retry later, or give up after the last attempt."""
    give_up = match.attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS
    reason = f"attempt {match.attempts}: the match runner failed: {error!r}"
    log.exception("match %s: %s", match.pk, reason)
    with transaction.atomic():
        if not match.release(token, reason, give_up):
            return
        if give_up and match.kind == Match.Kind.VALIDATION:
            versions[0].mark_validated(False, f"the server could not run the validation games: {error}")
        if give_up and match.tournament_id:
            queue.finish_tournament(match.tournament_id)
        if not give_up:
            queue.play(match.pk, match.kind, countdown=10 * match.attempts)


def store(match: Match, token: uuid.UUID, versions: list[BotVersion], result: bots.match.MatchResult) -> None:
    """Results, logs, aggregates and consequences in one transaction, only while this worker still holds the claim."""
    now = timezone.now()
    with transaction.atomic():
        finished = Match.objects.filter(pk=match.pk, claim_token=token, status=Match.Status.RUNNING).update(
            status=Match.Status.DONE, finished_at=now, games_done=len(result.games), error=""
        )
        if finished != 1:
            raise ClaimLost(f"match {match.pk} is no longer claimed by this worker")
        stored = results.save_games(match, seat_versions(match, versions), result.games, result.stderr or {}, now)
        coop_results.record(match, versions, stored)
        if match.kind == Match.Kind.VALIDATION:
            judge_validation(versions[0], result)
        if match.tournament_id:
            signals.send_tournament_changed(match.tournament_id)
            queue.finish_tournament(match.tournament_id)
        if results.counts_for_pairs(match):
            transaction.on_commit(lambda: refits.request(match.game))


def judge_validation(version: BotVersion, result: Any) -> None:
    """Active if the candidate (bot index 0) finished every game without a forfeit of its own."""
    for game_result in result.games:
        outcome = game_result.outcome
        if outcome.termination.value not in FORFEITS or outcome.seat is None:
            continue
        if game_result.seat_bots[outcome.seat] != 0:
            continue
        reason = f"game {game_result.index + 1}: {outcome.termination.value}: {outcome.detail}"
        version.mark_validated(False, reason, (result.stderr or {}).get(0, "")[-STDERR_TAIL_CHARS:])
        return
    version.mark_validated(True)


def requeue_lost() -> int:
    """Send again the matches whose worker died or whose message was lost; claiming keeps this safe."""
    now = timezone.now()
    stale = now - lease()
    lost = Q(status=Match.Status.RUNNING, heartbeat_at__lt=stale, queued_at__lt=stale) | Q(
        status=Match.Status.QUEUED, queued_at__lt=stale
    )
    sent = 0
    for pk, kind in Match.objects.filter(lost).values_list("pk", "kind")[:1000]:
        # Stamping queued_at first means two sweepers cannot both re-send the same match.
        if Match.objects.filter(lost, pk=pk).update(queued_at=now):
            queue.play(pk, kind)
            sent += 1
    if sent:
        log.warning("re-sent %d matches whose worker died or whose message was lost", sent)
    return sent
