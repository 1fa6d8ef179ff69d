"""bench/scale_copy.py reads a table's columns from the Django model: defaults fill what the plan leaves out,
and a required column nobody planned stops the fill with a message naming it."""

from __future__ import annotations

import os

import django
import pytest

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from bench import scale_copy  # noqa: E402
from league.arena.models import MatchEntry  # noqa: E402

User = get_user_model()


def test_unplanned_fields_take_their_defaults_or_blank():
    sources = scale_copy.column_sources(User, {"id": [1, 2], "username": ["a", "b"], "password": "!"}, 2, connection)
    assert sources["username"] == ["a", "b"]
    assert sources["password"] == "!"
    assert sources["is_active"] is True  # the model's default
    assert sources["first_name"] == ""  # blank text without a default, as Django saves it
    assert sources["last_login"] is None  # nullable
    rows = list(scale_copy.rows_of(sources, 2))
    assert [row[list(sources).index("username")] for row in rows] == ["a", "b"]


def test_a_required_column_nobody_planned_is_named():
    with pytest.raises(scale_copy.UnknownColumn, match=r"auth\.User\.password \(password\) is required"):
        scale_copy.column_sources(User, {"id": [1], "username": ["a"]}, 1, connection)


def test_a_planned_column_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="MatchEntry.match_id: 1 values planned for 2 rows"):
        scale_copy.column_sources(
            MatchEntry, {"id": [1, 2], "match_id": [1], "index": [0, 1], "version_id": [1, 2]}, 2, connection
        )


def test_planned_columns_the_schema_lost_are_listed():
    assert scale_copy.unplanned(MatchEntry, {"match_id": [], "content": [], "score": []}) == ["content", "score"]
