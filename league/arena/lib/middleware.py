"""Refusing a request body too large to be any page's input, before Django reads or spools any of it."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class RequestSizeLimit:
    """Answer 413 to a request whose Content-Length passes ARENA_MAX_REQUEST_BYTES (the body is never read).

    First in MIDDLEWARE: nothing before it reads request.POST or request.FILES, which would spool the body to disk.
    Without a Content-Length (chunked), Django reads no body at all. The proxy in front refuses such bodies
    too (nginx `client_max_body_size`, docs/operators.md); this covers a server reached without it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or "0"
        limit = settings.ARENA_MAX_REQUEST_BYTES
        try:
            size = int(declared)
        except ValueError:
            return HttpResponse(f"Content-Length {declared[:40]!r} is not a number.", status=400)
        if size > limit:
            return HttpResponse(
                f"The request body is {size} bytes; this server accepts at most {limit} bytes "
                f"({limit / (1 << 20):.1f} MiB).",
                status=413,
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)
