"""Fixtures for the league tests: a Django test database (SQLite by default, PostgreSQL via DATABASE_URL)."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "false")

import django  # noqa: E402

django.setup()

import pytest  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, settings):
    settings.ARENA_CACHE_DIR = tmp_path / "cache"
    settings.ARENA_SANDBOX = False


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="correct horse battery")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="correct horse battery")


@pytest.fixture
def sent(monkeypatch):
    """Record the Celery tasks queued (by name and arguments) instead of sending them to a broker."""
    from league.arena import tasks

    calls: list[tuple[str, tuple]] = []
    for name in ("play_match", "refit_ratings", "finish_tournament", "start_tournament"):
        task = getattr(tasks, name)
        monkeypatch.setattr(task, "delay", lambda *args, _n=name: calls.append((_n, args)))
        monkeypatch.setattr(task, "apply_async", lambda args=(), _n=name, **kw: calls.append((_n, tuple(args))))
    return calls
