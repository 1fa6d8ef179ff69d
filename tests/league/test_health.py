"""/healthz, the container health check's URL (tests/docker runs it through gunicorn on a real database)."""

from __future__ import annotations

import logging

import pytest
from django.db import OperationalError

from league.arena.ops import health


@pytest.mark.django_db
def test_healthz_answers_ok_when_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert "no-cache" in response["Cache-Control"]  # a proxy must never answer for a dead server
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


class _Unreachable:
    def cursor(self):
        raise OperationalError('connection to server at "db.internal" (10.0.0.7), port 5432 failed')


def test_healthz_is_503_naming_the_failure_without_its_details(client, monkeypatch, caplog):
    monkeypatch.setattr(health, "connection", _Unreachable())
    with caplog.at_level(logging.WARNING, logger="league.arena.ops.health"):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.content == b"database unavailable: OperationalError"
    assert "db.internal" in caplog.text  # the operator finds the details in the log
