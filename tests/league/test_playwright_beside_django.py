"""Playwright beside the database (tests/league/browser.py): what a browser test queries between its browser steps
goes through connections of Playwright's async context, and those are closed with Playwright. Left open, their
sessions outlived the test and kept the test database from being dropped at the end of the run."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import connection, connections

from tests.league.browser import playwright_beside_django
from tests.league.sessions import sessions_left


def test_a_connection_opened_beside_playwright_is_closed_with_it(transactional_db):
    opened = []
    with playwright_beside_django():
        get_user_model().objects.count()
        opened.append(connections["default"])
    beside = opened[0]
    assert beside is not connections["default"]  # the async context's own, not the thread's
    assert beside.connection is None


def test_no_session_outlives_playwright_beside_django(transactional_db):
    with playwright_beside_django():
        get_user_model().objects.count()
    if connection.vendor == "postgresql":
        assert sessions_left() == []
