"""What the staff's machinery page shows: the broker's queue lengths, the matches running and their workers, the
workers' last heartbeats, the workers whose own environment broke, the last hour's failures with their reasons, and
each ladder's last rating refit.

Everything is read from the database except the queue lengths, which the broker answers (a passive queue declare:
LLEN of the queue's lists on Redis, the count of message files in its folder on the filesystem broker).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Max, Q
from django.utils import timezone
from kombu.exceptions import ChannelError

from league.arena.models import GAME_NAMES, Match, RatingFit, Season, WorkerHealth
from league.celery import app

RECENT = timedelta(hours=1)
BROKER_TIMEOUT_SECONDS = 2.0
_COOP_KEY = re.compile(r"^coop:(?P<season>\d+):(?P<players>\d+)$")


@dataclass(frozen=True)
class QueueLength:
    name: str
    messages: int | None  # None when the broker did not answer
    problem: str = ""


@dataclass(frozen=True)
class WorkerBeat:
    name: str
    running: int
    last_heartbeat: datetime | None
    silent: bool  # no heartbeat within a match lease while it holds a running match


@dataclass(frozen=True)
class RefitTime:
    ladder: str
    fitted_at: datetime | None
    games: int
    pending: bool
    refitting: bool


def queue_lengths() -> list[QueueLength]:
    """The messages waiting in each of the league's queues, as the broker counts them."""
    names = [queue.name for queue in settings.CELERY_TASK_QUEUES]
    try:
        with app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
            channel = connection.default_channel
            return [QueueLength(name, count) for name, count in zip(names, waiting_all(channel, names), strict=True)]
    except Exception as error:  # any broker failure is shown on the page, not raised at the staff
        problem = f"the broker did not answer: {error}"
        return [QueueLength(name, None, problem) for name in names]


def waiting_all(channel: Any, names: list[str]) -> list[int]:
    """Messages waiting in each of the queues `names` on an open channel. On Redis, one round trip for them all
    (a passive declare per queue takes two, and /metrics/ asks at every scrape): kombu's Redis channel keeps a list
    per queue and priority step, and counts a queue as the sum of their lengths, as this does."""
    if not all(hasattr(channel, name) for name in ("conn_or_acquire", "priority_steps", "_q_for_pri")):
        return [waiting(channel, name) for name in names]
    steps = list(channel.priority_steps)
    with channel.conn_or_acquire() as client, client.pipeline() as pipe:
        for name in names:
            for step in steps:
                pipe.llen(channel._q_for_pri(name, step))
        lengths = pipe.execute()
    return [sum(lengths[k * len(steps) : (k + 1) * len(steps)]) for k in range(len(names))]


def waiting(channel: Any, name: str) -> int:
    """Messages waiting in the queue `name` on an open channel."""
    try:
        return channel.queue_declare(queue=name, passive=True).message_count
    except ChannelError:  # Redis keeps no list for an empty queue: a passive declare finds nothing
        return 0


def running_matches() -> list[Match]:
    return list(
        Match.objects.filter(status=Match.Status.RUNNING).select_related("tournament").order_by("started_at", "pk")
    )


def worker_beats(now: datetime | None = None) -> list[WorkerBeat]:
    """Each worker seen in the last hour (by the matches it claimed), with its newest heartbeat, newest first."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.ARENA_MATCH_LEASE_SECONDS)
    seen = (
        Match.objects.exclude(claimed_by="")
        .filter(Q(status=Match.Status.RUNNING) | Q(heartbeat_at__gte=now - RECENT))
        .values("claimed_by")
        .annotate(last=Max("heartbeat_at"), running=Count("pk", filter=Q(status=Match.Status.RUNNING)))
        .order_by("-last")
    )
    return [
        WorkerBeat(
            row["claimed_by"],
            row["running"],
            row["last"],
            silent=bool(row["running"]) and (row["last"] is None or row["last"] < now - lease),
        )
        for row in seen
    ]


def sick_workers(now: datetime | None = None) -> list[WorkerHealth]:
    """Workers whose own environment is broken (they take no match), and those that healed in the last hour."""
    since = (now or timezone.now()) - RECENT
    return list(WorkerHealth.objects.filter(Q(sick=True) | Q(recovered_at__gte=since)).order_by("-sick", "-since"))


def recent_failures(now: datetime | None = None, limit: int = 100) -> list[Match]:
    """Matches that failed, or whose run broke and was retried, in the last hour; withdrawn ones are not failures."""
    since = (now or timezone.now()) - RECENT
    return list(
        Match.objects.exclude(error="")
        .exclude(status__in=[Match.Status.CANCELLED, Match.Status.DONE])
        .filter(Q(finished_at__gte=since) | Q(queued_at__gte=since))
        .select_related("tournament")
        .order_by("-queued_at", "-pk")[:limit]
    )


def _ladder_name(key: str, seasons: dict[int, Season]) -> str:
    coop = _COOP_KEY.match(key)
    if coop is None:
        return GAME_NAMES.get(key, key)
    season = seasons.get(int(coop["season"]))
    players = int(coop["players"])
    team = "alone" if players == 1 else f"teams of {players}"
    return f"{season or 'season ' + coop['season']}, {team}"


def refit_times() -> list[RefitTime]:
    """Each ladder's last rating refit, ladders never refitted included (as RatingFit has them)."""
    fits = list(RatingFit.objects.order_by("game"))
    season_ids = {int(match["season"]) for fit in fits if (match := _COOP_KEY.match(fit.game))}
    seasons = Season.objects.in_bulk(season_ids)
    return [
        RefitTime(_ladder_name(fit.game, seasons), fit.fitted_at, fit.games, fit.pending, fit.claim_token is not None)
        for fit in fits
    ]
