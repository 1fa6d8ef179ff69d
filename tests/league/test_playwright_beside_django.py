"""Playwright beside the database (tests/league/browser.py): what a browser test queries between its browser steps
goes through connections of Playwright's async context, and those are closed with Playwright. Left open, their
sessions outlived the test and kept the test database from being dropped at the end of the run."""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.db import connection, connections

from tests.league.browser import playwright_beside_django


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
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + 5  # a closed session's backend ends a moment after its client
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()"
            )
            others = cursor.fetchone()[0]
        if others == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert others == 0
