"""/metrics/ for Prometheus (prometheus-client's text format): the league's machinery as numbers.

prometheus-client rather than django-prometheus: django-prometheus instruments every model and database call
per process, while what operators ask here lives in the database, shared by every web and worker process. So the
league's figures are read at scrape time by one Collector with a few small queries (any web process answers the
same): match counts from the tallies the match table's triggers keep (league/arena/models/tallies.py), the rest
from indexed columns, and only request latency is kept per process (league/arena/lib/request_metrics.py).
The names and their meanings are listed in docs/operators.md.

Access: a bearer token (ARENA_METRICS_TOKEN) or a client address in ARENA_METRICS_ALLOWED_IPS; with neither set,
nobody scrapes.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import threading
from collections import Counter
from collections.abc import Iterator

from django.conf import settings
from django.db.models import Count, Max, Min
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from league.arena.lib.request_metrics import REQUEST_SECONDS
from league.arena.models import BotVersion, Game, Match, RatingFit
from league.arena.ops import machinery, tallies


class LeagueCollector(Collector):
    """The league's figures, read from the database and the broker at each scrape."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        yield from _queues()
        yield from _matches()
        games = CounterMetricFamily(
            "arena_games_stored",
            "Games stored (the newest game's id: ids are handed out in order and never reused, so rate() of it is "
            "games per second; a store rolled back skips an id).",
        )
        games.add_metric([], Game.objects.aggregate(newest=Max("pk"))["newest"] or 0)
        yield games
        yield from _refits(now)
        yield from _workers(now)
        yield from _validation(now)


# Each web process keeps one broker connection for its scrapes (connecting took half a scrape's time); one that
# fails is dropped, that scrape reports the broker down, and the next connects afresh.
_broker = threading.local()


def _queue_lengths() -> list[machinery.QueueLength]:
    names = [queue.name for queue in settings.CELERY_TASK_QUEUES]
    connection = getattr(_broker, "connection", None)
    try:
        if connection is None:
            connection = machinery.app.connection_for_read()
            connection.ensure_connection(max_retries=1, timeout=machinery.BROKER_TIMEOUT_SECONDS)
            _broker.connection = connection
        channel = connection.default_channel
        lengths = machinery.waiting_all(channel, names)
        return [machinery.QueueLength(name, count) for name, count in zip(names, lengths, strict=True)]
    except Exception as error:  # a broker that does not answer is a gauge at 0, not a failed scrape
        _broker.connection = None
        if connection is not None:
            connection.release()
        return [machinery.QueueLength(name, None, f"the broker did not answer: {error}") for name in names]


def _queues() -> Iterator[Metric]:
    waiting = GaugeMetricFamily("arena_queue_messages", "Messages waiting in a broker queue.", labels=["queue"])
    up = GaugeMetricFamily("arena_broker_up", "1 when the broker answered this scrape, else 0.")
    lengths = _queue_lengths()
    for queue in lengths:
        if queue.messages is not None:
            waiting.add_metric([queue.name], queue.messages)
    up.add_metric([], 0 if any(queue.messages is None for queue in lengths) else 1)
    yield waiting
    yield up


def _matches() -> Iterator[Metric]:
    matches = GaugeMetricFamily(
        "arena_matches", "Matches by kind and status (done: played; failed: given up).", labels=["kind", "status"]
    )
    failed = GaugeMetricFamily(
        "arena_matches_failed", "Matches given up for good, by kind and the step that broke.", labels=["kind", "reason"]
    )
    by_status: Counter[tuple[str, str]] = Counter()
    for (kind, status, reason), n in sorted(tallies.match_counts().items()):
        by_status[(kind, status)] += n
        if status == Match.Status.FAILED:
            failed.add_metric([kind, reason], n)
    for (kind, status), n in by_status.items():
        matches.add_metric([kind, status], n)
    yield matches
    yield failed


def _refits(now) -> Iterator[Metric]:
    lag = GaugeMetricFamily(
        "arena_refit_lag_seconds",
        "Seconds since a ladder's last finished refit while games wait that it does not cover (0 when up to date).",
        labels=["ladder"],
    )
    running = GaugeMetricFamily("arena_refit_running", "1 while a ladder's refit runs.", labels=["ladder"])
    fitted = GaugeMetricFamily("arena_refit_games", "Rated games a ladder's ratings were fitted on.", labels=["ladder"])
    for fit in RatingFit.objects.all():
        waiting = fit.pending or (fit.fitted_at is None and fit.claim_token is not None)
        since = (now - fit.fitted_at).total_seconds() if fit.fitted_at else 0.0
        lag.add_metric([fit.game], max(since, 0.0) if waiting else 0.0)
        running.add_metric([fit.game], 1 if fit.claim_token is not None else 0)
        fitted.add_metric([fit.game], fit.games)
    yield from (lag, running, fitted)


def _workers(now) -> Iterator[Metric]:
    age = GaugeMetricFamily(
        "arena_worker_heartbeat_age_seconds",
        "Seconds since a worker's newest match heartbeat (workers seen in the last hour).",
        labels=["worker"],
    )
    playing = GaugeMetricFamily("arena_worker_running_matches", "Matches a worker holds now.", labels=["worker"])
    silent = GaugeMetricFamily(
        "arena_workers_silent", "Workers holding a running match without a heartbeat for a whole lease."
    )
    beats = machinery.worker_beats(now)
    for beat in beats:
        if beat.last_heartbeat is not None:
            age.add_metric([beat.name], max((now - beat.last_heartbeat).total_seconds(), 0.0))
        playing.add_metric([beat.name], beat.running)
    silent.add_metric([], sum(beat.silent for beat in beats))
    sick = GaugeMetricFamily(
        "arena_workers_sick",
        "Workers whose own environment broke (their self-check fails): they take no match until it passes.",
    )
    sick_worker = GaugeMetricFamily(
        "arena_worker_sick", "1 for a worker whose self-check fails (the machinery page says why).", labels=["worker"]
    )
    names = [health.name for health in machinery.sick_workers(now) if health.sick]
    for name in names:
        sick_worker.add_metric([name], 1)
    sick.add_metric([], len(names))
    yield from (age, playing, silent, sick, sick_worker)


def _validation(now) -> Iterator[Metric]:
    waiting = BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).aggregate(
        n=Count("pk"), oldest=Min("created")
    )
    count = GaugeMetricFamily("arena_validation_waiting", "Uploaded versions waiting for their validation verdict.")
    count.add_metric([], waiting["n"])
    oldest = GaugeMetricFamily(
        "arena_validation_oldest_wait_seconds", "How long the longest-waiting version has waited since its upload."
    )
    oldest.add_metric([], (now - waiting["oldest"]).total_seconds() if waiting["oldest"] else 0.0)
    yield from (count, oldest)


def registry() -> CollectorRegistry:
    """What a scrape reads: the league's figures and the request latency (every process's, in multiprocess mode)."""
    scraped = CollectorRegistry(auto_describe=False)
    scraped.register(LeagueCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(scraped)
    else:
        scraped.register(REQUEST_SECONDS)
    return scraped


def allowed(request: HttpRequest) -> bool:
    """A scrape carries the bearer token, or comes from an allowed address."""
    token = settings.ARENA_METRICS_TOKEN
    scheme, _, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        return True
    try:
        client = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(client in network for network in settings.ARENA_METRICS_ALLOWED_NETWORKS)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        return HttpResponse(
            "Metrics need a bearer token (ARENA_METRICS_TOKEN) or an allowed address (ARENA_METRICS_ALLOWED_IPS).\n",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)
