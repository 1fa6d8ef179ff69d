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
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

import bots.match
from bots.match import BotSpec, MatchSpec, TimeControl
from bots.reply_bounds import storable_text
from bots.sandbox.limits import SandboxLimits
from games import Termination
from league.arena import queue
from league.arena.lib import claimants, heartbeats, retrying, stalls
from league.arena.lib.unpack_limits import upload_limits
from league.arena.models import BotUpload, BotVersion, Match
from league.arena.play import events, hosts, results

log = logging.getLogger(__name__)

STDERR_TAIL_CHARS = results.STDERR_TAIL_CHARS
UNSENT_GRACE = timedelta(seconds=3)  # a queued match this old, with its queue empty, lost its message
# A match whose runs keep ending with their worker gone (killed, its machine lost) without a word is given up after
# this many: worker deaths are not the match's failures (ARENA_MATCH_MAX_ATTEMPTS counts those), but a bot that kills
# every worker it meets past the sandbox's bounds must not loop for ever.
MAX_SILENT_RUNS = 10
# What a store's idle bound (ARENA_STORE_IDLE_SECONDS) allows on top for each game: the stored-match handlers go
# through the games between their statements (co-op results, analyses, version tests), so a match of thousands of
# games on a busy machine is not ended at every retry.
STORE_IDLE_PER_GAME = 0.002


class ClaimLost(Exception):
    """Another worker took the match over, or may have (this one was presumed dead); drop this run's results."""


class StoreStoodIdle(OperationalError):
    """This worker stood still in the middle of storing a match, and the database ended the store's transaction
    (stalls.end_if_idle): a passing error, tried again under the claim's and the lease's checks."""


class WorkerStalled(Exception):
    """A turn timed out while the whole worker stood still (frozen, paused): the time was not the bot's."""


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
        # house bots run in this process: every sandboxed bot is an upload
        sandbox_limits=SandboxLimits(require_cgroups=not settings.ARENA_SANDBOX_WITHOUT_CGROUPS),
        reuse_sandboxes=True,  # a worker plays the same uploads again and again: a bot's next match joins its sandbox
        first_deal=match.first_deal,
        # validation fails a version at its first forfeit: its later games are forfeited at once, not played out
        max_failures=1 if match.kind == Match.Kind.VALIDATION else MatchSpec.max_failures,
    )


def lease() -> timedelta:
    return timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS)


# The matches this process is playing now: a match claimed under this process's name that is not among them was
# claimed by an earlier call whose answer was lost (the database went away just after committing the claim).
_playing: set[int] = set()


def play(match_id: int, worker: str | None = None) -> bool:
    """Play the match if nobody else is; True when this call stored its results."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        log.warning("match %s does not exist (deleted?); nothing to play", match_id)
        return False
    worker = worker or worker_name()
    token = match.claim(worker, lease(), dead_claimant=dead_claimant_here(match, worker))
    if token is None:
        log.info(
            "match %s: not claimed (%s, by %s); nothing to do", match.pk, match.status, match.claimed_by or "nobody"
        )
        return False
    _playing.add(match.pk)
    try:
        return _play_claimed(match, token)
    finally:
        _playing.discard(match.pk)


def _play_claimed(match: Match, token: uuid.UUID) -> bool:
    log.info(
        "match %s: claimed by %s, attempt %d: playing %d games", match.pk, match.claimed_by, match.attempts, match.games
    )
    versions = match.ordered_versions()
    silent = match.attempts - 1 - match.failures  # earlier runs that ended without a word (their workers died)
    if silent >= MAX_SILENT_RUNS:
        last = match.error or "its worker stopped before it could say why"
        _give_up(match, token, versions, f"gave up after {silent} runs whose workers stopped; the last: {last}")
        return False
    played = 0
    game_started = started = time.monotonic()

    def beat() -> bool:
        return match.heartbeat(token, played, lease())

    def on_game(result: bots.match.GameResult) -> None:
        nonlocal played, game_started
        played += 1
        if not heartbeat.threaded and not beat():  # inside a transaction (a test's): beat between games instead
            heartbeat.lost.set()
        if heartbeat.lost.is_set():
            raise ClaimLost(f"match {match.pk} was taken over by another worker")
        if result.outcome.termination == Termination.TIMEOUT and heartbeat.stalled_since(game_started):
            raise WorkerStalled(f"game {result.index} timed out while the whole worker stood still")
        game_started = time.monotonic()

    with heartbeats.Heartbeat(beat, f"match {match.pk}", lease=lease().total_seconds()) as heartbeat:
        try:
            result = bots.match.run_match(match_spec(match, versions), on_game=on_game)
        except ClaimLost:
            log.warning("match %s: claim lost while playing (presumed dead); another worker finishes it", match.pk)
            _abandon(match, token, "its worker lost its claim (no heartbeat for a lease)")
            return False
        except WorkerStalled as stall:
            log.warning("match %s: %s; no bot is charged for it: the match is played again", match.pk, stall)
            _abandon(match, token, str(stall))
            return False
        except retrying.TRANSIENT as error:
            _hand_back(match, token, error)  # not the runner's fault: the task claims it again once all is back
            raise
        except Exception as error:
            _run_failed(match, token, versions, error, "the match runner failed")
            raise

        def store_while_held() -> None:
            try:
                store(match, token, versions, result)
            except StoreStoodIdle as error:
                if heartbeat.past_lease():  # and past its lease: no retry could store it, so none is waited for
                    raise ClaimLost(f"match {match.pk}: no heartbeat for a lease while storing") from error
                raise

        try:
            retrying.call(store_while_held, f"match {match.pk}: storing")
        except ClaimLost:
            log.warning("match %s: claim lost before storing (presumed dead); another worker finishes it", match.pk)
            _abandon(match, token, "its worker lost its claim (no heartbeat for a lease) before storing")
            return False
        except retrying.TRANSIENT:
            raise  # the database stayed away past the in-place retries: the task is retried later
        except Exception as error:
            _run_failed(match, token, versions, error, "storing the results failed")
            raise
    log.info("match %s: stored %d games in %.1f s", match.pk, len(result.games), time.monotonic() - started)
    return True


def dead_claimant_here(match: Match, worker: str) -> str:
    """The match's claimant when it is a process of this very worker (same node) that is gone, a pool process
    killed, say, or this process itself when it is not playing the match (its claim committed but the answer was
    lost): that claim is dead for certain, so the match need not wait out the lease. "" otherwise."""
    if match.status != Match.Status.RUNNING:
        return ""
    if match.claimed_by == worker and match.pk not in _playing:
        return match.claimed_by  # this very process claimed it, and never heard so (a retry after the claim committed)
    if not claimants.gone_here(match.claimed_by, worker):
        return ""
    return match.claimed_by


def _abandon(match: Match, token: uuid.UUID, why: str) -> None:
    """Give up this run and put the match back at once if nobody took it over yet (not counted as an attempt)."""
    reason = storable_text(f"attempt {match.attempts}: {why}; played again")
    with transaction.atomic():
        if match.release(token, reason, give_up=False, own_failure=False):
            queue.play(match.pk, match.kind, resent=True)


def _hand_back(match: Match, token: uuid.UUID, error: Exception) -> None:
    """Put a match whose run met a passing error back in the queue at once, as soon as the database answers."""
    reason = f"attempt {match.attempts}: {retrying.what_failed(error)}; played again"
    retrying.call(
        lambda: match.release(token, reason, give_up=False, own_failure=False), f"match {match.pk}: handing it back"
    )


def _run_failed(match: Match, token: uuid.UUID, versions: list[BotVersion], error: Exception, what: str) -> None:
    """Judge a failed run: the worker's environment broke (HostSick is raised) or the match's own run did."""
    fault = hosts.environment_fault(error)
    sickness = hosts.self_check() if fault is not None else None
    if sickness is None:
        _runner_broke(match, token, versions, error, what)
        return
    reason = storable_text(f"attempt {match.attempts}: {what}: {fault}; {match.claimed_by} is sick ({sickness})")
    log.error("match %s: %s; handed back uncounted, for a healthy worker", match.pk, reason)
    with transaction.atomic():
        if match.release(token, reason, give_up=False, own_failure=False):
            queue.play(match.pk, match.kind, resent=True)
    raise hosts.HostSick(sickness) from error


def _runner_broke(match: Match, token: uuid.UUID, versions: list[BotVersion], error: Exception, what: str) -> None:
    """The runner or the storing failed for the match's own sake (not a bot's turn, not the worker's environment):
    retry later, or give up after its last attempt."""
    reason = storable_text(f"attempt {match.attempts}: {what}: {error!r}")
    log.exception("match %s: %s", match.pk, reason)
    failures = match.failures + 1
    if failures >= settings.ARENA_MATCH_MAX_ATTEMPTS:
        _give_up(match, token, versions, reason)
        return
    with transaction.atomic():
        retry_in = 10 * failures
        if match.release(token, reason, give_up=False, retry_in=retry_in):
            queue.play(match.pk, match.kind, countdown=retry_in, resent=True)


def _give_up(match: Match, token: uuid.UUID, versions: list[BotVersion], reason: str) -> None:
    """End the match as failed for `reason` (shown to the staff) and tell whoever handles a failed match."""
    reason = storable_text(reason)
    log.error("match %s failed for good: %s", match.pk, reason)
    with transaction.atomic():
        if match.release(token, reason, give_up=True):
            events.send_match_failed(match, versions, reason)


def store(match: Match, token: uuid.UUID, versions: list[BotVersion], result: bots.match.MatchResult) -> None:
    """Results, logs, aggregates and consequences in one transaction, only while this worker still holds the claim
    and its lease is alive."""
    now = timezone.now()
    idle = 0.0  # a caller's transaction (a test's) keeps its own bounds
    if settings.ARENA_STORE_IDLE_SECONDS and not transaction.get_connection().in_atomic_block:
        idle = settings.ARENA_STORE_IDLE_SECONDS + STORE_IDLE_PER_GAME * len(result.games)
    try:
        with transaction.atomic():
            finished = match.held(token, lease()).update(
                status=Match.Status.DONE, finished_at=now, games_done=len(result.games), error=""
            )
            if finished != 1:
                raise ClaimLost(f"match {match.pk} is no longer claimed by this worker")
            stored = results.save_games(
                match, seat_versions(match, versions), result.games, result.stderr or {}, now, idle_seconds=idle
            )
            events.send_match_stored(match, versions, stored, result)
    except DatabaseError as error:
        if stalls.ended_idle(error):
            raise StoreStoodIdle(f"match {match.pk}: the store stood idle and was ended ({error})") from error
        raise


def requeue_lost(broker_started: datetime | None = None) -> int:
    """Send again the matches whose worker died or whose message was lost; claiming keeps this safe.
    `broker_started`: the broker started empty then (`queue.broker_restarted_at`), losing what was sent before."""
    resent = resend_queued(broker_started) if broker_started else 0  # first: the dead ones re-sent next go once
    unsent = 0 if broker_started else sum(requeue_unsent(name, kinds) for name, kinds in queue.match_queues().items())
    return resent + requeue_dead() + unsent


def requeue_dead() -> int:
    """Hand back, and send again ahead of fresh matches, the running matches whose heartbeat stopped (their worker
    was killed, frozen, or its machine is gone). The match is queued again at once, its dead claim dropped: the
    page shows it waiting, not running, and from then on `requeue_unsent` alone decides whether its message is
    lost, so it is not sent again while this re-send still waits."""
    now = timezone.now()
    dead = Q(status=Match.Status.RUNNING, heartbeat_at__lt=now - lease())
    sent = 0
    for pk, kind, worker, beat, attempt in Match.objects.filter(dead).values_list(
        "pk", "kind", "claimed_by", "heartbeat_at", "attempts"
    )[:1000]:
        silent = (now - beat).total_seconds()
        error = f"attempt {attempt}: worker {worker} sent no heartbeat for {silent:.0f} s (killed?); played again"
        with transaction.atomic():
            # Conditional on the same stale heartbeat: two upkeeps, or a claim meanwhile, leave it to the first. A row
            # locked is being written by its holder right now (a store, resumed or frozen mid-way): left to the next
            # upkeep, so that the upkeep never waits on a frozen holder's lock.
            stale = Match.objects.filter(dead, pk=pk, heartbeat_at=beat)
            back = stale.select_for_update(skip_locked=True).exists() and stale.update(
                status=Match.Status.QUEUED, claim_token=None, queued_at=now, resent_at=now, error=error
            )
            if back:
                queue.play(pk, kind, resent=True)
        if back:
            sent += 1
            log.warning("match %s: worker %s sent no heartbeat for %.0f s (killed?); match re-sent", pk, worker, silent)
    return sent


def hand_back_dead_here(worker: str) -> int:
    """Hand back, and send again ahead of fresh matches, the running matches held by processes of this very worker
    (same node) that are gone: a pool process killed (Celery starts another), or the whole worker killed and started
    again under its name. Their death is certain, so their matches need not wait out the lease for the upkeep (the
    message of a killed pool process goes back to the queue, but a worker of another node that takes it cannot know
    its claimant is dead and leaves it alone). The attempt stays counted, as a silent run (MAX_SILENT_RUNS)."""
    node = worker.rpartition(":")[0]
    sent = 0
    for match in Match.objects.filter(status=Match.Status.RUNNING, claimed_by__startswith=f"{node}:"):
        dead = dead_claimant_here(match, worker)
        if not dead:
            continue
        error = f"attempt {match.attempts}: its process {dead} is gone (killed?); played again"
        with transaction.atomic():
            back = Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, claim_token=match.claim_token).update(
                status=Match.Status.QUEUED, claim_token=None, queued_at=timezone.now(), resent_at=timezone.now(),
                error=error,
            )  # fmt: skip
            if back:
                queue.play(match.pk, match.kind, resent=True)
        if back:
            sent += 1
            log.warning("match %s: its process %s is gone (killed?); match re-sent", match.pk, dead)
    return sent


def requeue_unsent(queue_name: str, kinds: list[str]) -> int:
    """Send again the queued matches of `kinds` whose message was lost, once `queue_name` has no message waiting.

    A queued match older than UNSENT_GRACE whose queue is empty has no message anywhere (a reserved one is claimed
    within milliseconds): the broker restarted empty, or a worker took it and died before claiming. Sending one that
    does have a message (a retry waiting for its countdown, one a busy worker prefetched) costs a duplicate, which its
    claim turns away. A match whose planned retry is not yet due (its message is held by a worker for its
    countdown, not in the queue) is not lost.
    """
    waiting = queue.waiting(queue_name)
    if waiting is None or waiting > 0:
        return 0
    now = timezone.now()
    due = Q(retry_due_at__isnull=True) | Q(retry_due_at__lt=now - UNSENT_GRACE)  # a planned retry keeps its backoff
    lost = Q(status=Match.Status.QUEUED, kind__in=kinds, queued_at__lt=now - UNSENT_GRACE) & due
    sent = []
    for pk, kind in Match.objects.filter(lost).values_list("pk", "kind")[:1000]:
        with transaction.atomic():
            if Match.objects.filter(lost, pk=pk).update(queued_at=now, resent_at=now):
                queue.play(pk, kind, resent=True)
                sent.append(pk)
    if sent:
        shown = ", ".join(str(pk) for pk in sent[:20]) + (", ..." if len(sent) > 20 else "")
        log.warning(
            "re-sent %d queued matches whose message was lost (queue %s is empty; the broker restarted empty?): %s",
            len(sent),
            queue_name,
            shown,
        )
    return len(sent)


def resend_queued(before: datetime) -> int:
    """Send again every match queued before `before`, when the broker started empty (Redis restarted): none of their
    messages waits anywhere, not even in a worker's memory (a worker drops the messages it holds for their countdown
    when it loses the broker), however recently they were sent. A planned retry keeps the rest of its backoff."""
    now = timezone.now()
    lost = Match.objects.filter(status=Match.Status.QUEUED, queued_at__lt=before)
    with transaction.atomic():
        rows = list(lost.values_list("pk", "kind", "retry_due_at"))
        lost.filter(pk__in=[pk for pk, _, _ in rows]).update(queued_at=now, resent_at=now)
        for pk, kind, due in rows:  # one claimed meanwhile gets a duplicate, which its claim turns away
            queue.play(pk, kind, countdown=(due - now).total_seconds() if due and due > now else None, resent=True)
    if rows:
        log.warning("re-sent %d queued matches whose message was lost (the broker started empty)", len(rows))
    return len(rows)
