"""Request latency for /metrics/: a histogram per route pattern and method, filled by a middleware.

prometheus-client keeps it in this process; under gunicorn's several workers set PROMETHEUS_MULTIPROC_DIR (an
empty folder each start) and every worker writes its samples there, which /metrics/ adds up (docs/operators.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from prometheus_client import Histogram

# Not registered in prometheus-client's global registry: /metrics/ builds its own (league/arena/ops/metrics.py).
REQUEST_SECONDS = Histogram(
    "arena_http_request_duration_seconds",
    "Time from a request entering Django to its response leaving it, by route pattern and method.",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=None,
)
METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


class RequestLatency:
    """Times each request; the route is the URL pattern (`games/<int:game_id>/`), so labels stay few."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = (match.route or match.view_name) if match is not None else "unmatched"
        method = request.method if request.method in METHODS else "other"
        REQUEST_SECONDS.labels(route, method).observe(time.perf_counter() - started)
        return response
