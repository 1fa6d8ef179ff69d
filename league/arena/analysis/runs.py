"""Running a game's analysis on a worker: claim it (a conditional UPDATE, so it runs once at a time), analyse the
verified log with the expert, keep the progress (turns done of the total) for the replay page's bar, store it, and
tell the user who asked for it (notification centre, kind `analysis-finished`) that it is ready or why it failed."""

from __future__ import annotations

import logging
import time
import uuid
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

import games
from bots.analysis.analyse import analyse_log
from bots.analysis.rollouts import Precision
from league.arena import notifications, queue
from league.arena.lib import caching
from league.arena.models import GAME_NAMES, GameAnalysis, GameSeat, LogTampered

log = logging.getLogger(__name__)

PROGRESS_EVERY_SECONDS = 0.5  # at most two progress writes a second


class ClaimLost(Exception):
    """Another worker took the analysis over (this one's heartbeat was too old)."""


def run(analysis_id: int) -> bool:
    """Analyse, if nobody else is; True when this call stored the analysis."""
    analysis = GameAnalysis.objects.select_related("game").filter(pk=analysis_id).first()
    if analysis is None:
        return False
    token = analysis.claim(timedelta(seconds=settings.ARENA_ANALYSIS_LEASE_SECONDS))
    if token is None:
        return False
    try:
        figures = analyse_log(
            analysis.game.verified_log(),
            seed=analysis.seed,
            precision=Precision(max_samples=analysis.rollouts, horizon=analysis.horizon),
            progress=_reporter(analysis, token),
        )
    except ClaimLost:
        return False
    except (LogTampered, games.LogMismatch) as error:
        return _finish(analysis, token, status=GameAnalysis.Status.FAILED, error=str(error))
    except Exception as error:
        log.exception("analysis %s failed", analysis.pk)
        _finish(analysis, token, status=GameAnalysis.Status.FAILED, error=f"{type(error).__name__}: {error}")
        raise
    result = figures.to_json()
    marked = [
        {key: turn[key] for key in ("turn", "seat", "mark", "loss", "cards_loss") if turn.get(key) is not None}
        for turn in result["turns"]
        if turn["mark"] in ("mistake", "blunder")
    ]
    return _finish(
        analysis,
        token,
        status=GameAnalysis.Status.DONE,
        result=result,
        marked=marked,
        turns_done=len(result["turns"]),
        turns_total=len(result["turns"]),
    )


def _reporter(analysis: GameAnalysis, token: uuid.UUID):
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last < PROGRESS_EVERY_SECONDS and done < total:
            return
        last = now
        if not analysis.progress(token, done, total):
            raise ClaimLost

    return progress


def _finish(analysis: GameAnalysis, token: uuid.UUID, **fields: object) -> bool:
    with transaction.atomic():
        finished = bool(
            GameAnalysis.objects.filter(pk=analysis.pk, claim_token=token, status=GameAnalysis.Status.RUNNING).update(
                claim_token=None, finished_at=timezone.now(), **fields
            )
        )
        if finished:
            analysis.refresh_from_db()
            _tell(analysis)
            if analysis.status == GameAnalysis.Status.DONE:
                _mark_bot_pages_stale(analysis)
        return finished


def _mark_bot_pages_stale(analysis: GameAnalysis) -> None:
    """The seated bots' pages list their worst blunders from the analyses: theirs are stale once this one commits."""
    bots = set(GameSeat.objects.filter(game_id=analysis.game_id).values_list("version__bot_id", flat=True))
    for bot_id in bots:
        transaction.on_commit(partial(caching.bump, caching.bot_analyses_scope(bot_id)))


def _tell(analysis: GameAnalysis) -> None:
    """Tell the user who asked (an opted-in owner for an automatic one) that the analysis is ready, or why it failed."""
    if analysis.requested_by_id is None:
        return
    game = analysis.game
    players = " vs ".join(seat.version.bot.full_name for seat in game.seats.select_related("version__bot"))
    what = f"game {game.pk} ({GAME_NAMES[game.game]}, {players})"
    if analysis.status == GameAnalysis.Status.DONE:
        text = f"The analysis of {what} is ready: {_marks_told(analysis.marked)}."
    else:
        text = f"The analysis of {what} failed: {analysis.error}"
    # A failed analysis asked for again is the same row with a new `created`: its second ending is news too.
    key = f"analysis:{analysis.pk}:{analysis.created.timestamp():.6f}"
    notifications.notify(
        analysis.requested_by_id, notifications.Kind.ANALYSIS_FINISHED, text, reverse("game", args=[game.pk]), key
    )


def _marks_told(marked: list[dict]) -> str:
    counts = {mark: sum(1 for turn in marked if turn["mark"] == mark) for mark in ("blunder", "mistake")}
    told = [f"{count} {mark}{'s' if count != 1 else ''}" for mark, count in counts.items() if count]
    return ", ".join(told) if told else "no mistake or blunder marked"


def resend_lost() -> int:
    """Send again (the upkeep) the analyses whose worker stopped beating, and, while the analysis queue is empty, the
    queued ones whose message is lost; each waits a lease between two sends. Claiming keeps a duplicate harmless."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_ANALYSIS_LEASE_SECONDS)
    lost = Q(status=GameAnalysis.Status.RUNNING, heartbeat_at__lt=stale)
    if queue.waiting(settings.ARENA_ANALYSIS_QUEUE) == 0:
        unsent = Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, created__lt=stale)
        lost |= Q(status=GameAnalysis.Status.QUEUED) & unsent
    sent = 0
    for pk in GameAnalysis.objects.filter(lost).values_list("pk", flat=True)[:100]:
        with transaction.atomic():
            # Queued again, its dead claim dropped, and marked as sent now so the next upkeep leaves it a lease.
            back = {"status": GameAnalysis.Status.QUEUED, "claim_token": None, "heartbeat_at": now}
            if GameAnalysis.objects.filter(lost, pk=pk).update(**back):
                queue.analyse_game(pk)
                sent += 1
    if sent:
        log.warning("%s analyses re-sent: their worker stopped or their message was lost", sent)
    return sent
