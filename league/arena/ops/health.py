"""`/healthz`: a cheap liveness check for load balancers and container health checks."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 "ok" when the database answers a query, 503 naming what failed otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        # The details (host names, ports) go to the log, not to whoever asked.
        log.warning("health check: the database is unavailable: %s", error)
        return HttpResponse(
            f"database unavailable: {type(error).__name__}", status=503, content_type="text/plain; charset=utf-8"
        )
    return HttpResponse("ok", content_type="text/plain; charset=utf-8")
