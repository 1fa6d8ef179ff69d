"""The staff's machinery page (what it shows is gathered in league.arena.ops.machinery)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from league.arena.ops import machinery


def _machinery() -> dict:
    return {
        "queues": machinery.queue_lengths(),
        "running": machinery.running_matches(),
        "workers": machinery.worker_beats(),
        "sick": machinery.sick_workers(),
        "failures": machinery.recent_failures(),
        "refits": machinery.refit_times(),
        "broker": settings.CELERY_BROKER_URL.partition("://")[0],
    }


@staff_member_required
def machinery_page(request: HttpRequest) -> HttpResponse:
    return render(request, "arena/machinery.html", _machinery())


@staff_member_required
def machinery_live(request: HttpRequest) -> HttpResponse:
    """The page's figures alone, which site.js fetches every few seconds to replace them in place."""
    return render(request, "arena/_machinery.html", _machinery())
