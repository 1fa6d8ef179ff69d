"""A worker that gives bots cgroups says at start when the kernel makes every spaced bot start wait to enter them
(league/celery.py; docs/operators.md, 'Cgroups for the sandbox')."""

from __future__ import annotations

import logging

import pytest

from bots.sandbox import cgroups
from league import celery


@pytest.mark.parametrize(
    ("available", "favors", "warns"),
    [(True, False, True), (True, True, False), (False, False, False)],
)
def test_the_worker_warns_only_where_cgroups_are_used_and_moves_wait(monkeypatch, caplog, available, favors, warns):
    monkeypatch.setattr(cgroups, "available", lambda: available)
    monkeypatch.setattr(cgroups, "favors_moves", lambda mounts=None: favors)
    with caplog.at_level(logging.WARNING, logger=celery.__name__):
        assert celery.warn_where_cgroup_moves_wait() is warns
    assert ("favordynmods" in caplog.text) is warns
