"""The ?page= of a list page: parsed, and the page of items it asks for (a 404 past the end)."""

from __future__ import annotations

from django.core.paginator import InvalidPage, Page, Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest


def page_number(request: HttpRequest) -> int:
    """The ?page= number (1 when absent); anything but a positive integer is a 404."""
    raw = request.GET.get("page", "1")
    try:
        number = int(raw)
    except ValueError:
        raise Http404(f"{raw[:20]!r} is not a page number") from None
    if number < 1:
        raise Http404(f"{number} is not a page number")
    return number


def paginate(request: HttpRequest, items: QuerySet, per_page: int) -> Page:
    """The requested page of `items`; a page past the end is a 404 (the first page always exists)."""
    try:
        return Paginator(items, per_page).page(page_number(request))
    except InvalidPage as error:
        raise Http404(str(error)) from None
