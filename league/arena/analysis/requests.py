"""Asking for a game's analysis: one per game, precision and engine version, shared by everyone, counted against the
daily limit of the user who first asked (`ARENA_ANALYSES_PER_DAY`); what the API and the replay page show of it
(`describe`)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from bots.analysis.engine import engine_version
from bots.analysis.rollouts import HORIZON, Precision
from league.arena import queue
from league.arena.lib import quotas
from league.arena.models import Game, GameAnalysis

ANALYSIS_SEED = "0"


class AnalysisRefused(Exception):
    """Asking is turned off on this server."""


class LimitReached(AnalysisRefused, quotas.OverQuota):
    """The user asked for their daily number of analyses; `retry_at` is when the next may be asked."""


def precision() -> Precision:
    """The precision the league analyses at (every page and the API share it)."""
    return Precision(max_samples=settings.ARENA_ANALYSIS_ROLLOUTS, horizon=HORIZON)


def current_key() -> dict[str, Any]:
    """The fields that tell today's analyses (precision, seed and engine) from those made before a change."""
    chosen = precision()
    return {
        "rollouts": chosen.max_samples,
        "horizon": chosen.horizon,
        "seed": ANALYSIS_SEED,
        "engine": engine_version(),
    }


def current(game: Game) -> GameAnalysis | None:
    """The game's analysis at today's precision and by today's engine, if anyone asked for it."""
    return GameAnalysis.objects.filter(game=game, **current_key()).first()


def asked_today(user_id: int, now: datetime | None = None) -> int:
    """How many analyses `user_id` asked for in the last 24 hours."""
    return quotas.used(_asked_by(user_id), now or timezone.now())


def _asked_by(user_id: int) -> QuerySet[GameAnalysis]:
    return GameAnalysis.objects.filter(requested_by_id=user_id)


def ask(user: AbstractBaseUser, game: Game, automatic: bool = False) -> tuple[GameAnalysis, bool]:
    """The game's analysis, queued now if nobody asked for it yet (or it failed): (analysis, whether it was queued
    for this request). A new one counts against `user`'s daily limit and raises LimitReached past it."""
    now = timezone.now()
    with transaction.atomic():
        found = GameAnalysis.objects.select_for_update().filter(game=game, **current_key()).first()
        if found is not None and found.status != GameAnalysis.Status.FAILED:
            _resend_if_lost(found, now)
            return found, False
        # One new request at a time per user, so two at once cannot both take the limit's last analysis.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        _check_limit(user.pk, now)
        fresh = {"requested_by_id": user.pk, "automatic": automatic, "created": now, "turns_total": game.turns}
        if found is not None:  # a failed one is asked for again, as a new request
            fields = {**fresh, "status": GameAnalysis.Status.QUEUED, "turns_done": 0, "error": "", "claim_token": None}
            GameAnalysis.objects.filter(pk=found.pk).update(**fields)
            found.refresh_from_db()
            analysis = found
        else:
            try:
                with transaction.atomic():
                    analysis = GameAnalysis.objects.create(game=game, **current_key(), **fresh)
            except IntegrityError:  # someone else asked at the same moment: theirs is shared
                return GameAnalysis.objects.get(game=game, **current_key()), False
        queue.analyse_game(analysis.pk)
    return analysis, True


def _resend_if_lost(analysis: GameAnalysis, now: datetime) -> None:
    """Send a queued analysis's task again when it has waited past the lease (its message may be lost), and one whose
    worker stopped beating; claiming is conditional, so a second message for it does nothing."""
    lease = timedelta(seconds=settings.ARENA_ANALYSIS_LEASE_SECONDS)
    if analysis.status == GameAnalysis.Status.RUNNING:
        lost = analysis.heartbeat_at is not None and analysis.heartbeat_at < now - lease
    else:
        lost = analysis.status == GameAnalysis.Status.QUEUED and analysis.created < now - lease
    if lost:
        queue.analyse_game(analysis.pk)


def _check_limit(user_id: int, now: datetime) -> None:
    limit = settings.ARENA_ANALYSES_PER_DAY
    if limit == 0:
        raise AnalysisRefused("asking for analyses is turned off on this server (ARENA_ANALYSES_PER_DAY is 0)")
    asked = asked_today(user_id, now)
    quotas.check(
        limit,
        asked,
        1,
        _asked_by(user_id),
        now,
        lambda retry_at: LimitReached(
            f"you may ask for {limit} analyses in 24 hours and have asked for {asked} "
            f"(the next from {retry_at:%Y-%m-%d %H:%M} UTC); analyses others asked for are free to read",
            retry_at,
        ),
    )


def describe(analysis: GameAnalysis) -> dict[str, Any]:
    """The analysis as the API and the replay page show it: status, progress, and once done the figures."""
    total = analysis.turns_total
    return {
        "game": analysis.game_id,
        "status": analysis.status,
        "turns_done": total if analysis.status == GameAnalysis.Status.DONE else analysis.turns_done,
        "turns_total": total,
        "rollouts": analysis.rollouts,
        "horizon": analysis.horizon,
        "seed": analysis.seed,
        "created": analysis.created,
        "finished_at": analysis.finished_at,
        "error": analysis.error,
        "accuracy": (analysis.result or {}).get("accuracy"),
        "turns": (analysis.result or {}).get("turns"),
    }
