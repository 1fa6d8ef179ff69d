"""Storing a match knows only its games: whatever else a stored or failed match changes hooks into play/events.py."""

import pytest
from django.db import transaction

from league.arena.models import Game, Match
from league.arena.play import events, matches
from league.arena.uploads.house import house_version


@pytest.fixture
def house_match(db):
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    return Match.objects.create_with_entries(
        [greedy, rnd], kind="exhibition", game="face-to-face", games=2, seed="events-1", duplicate=True
    )


@pytest.fixture
def heard():
    """What a handler connected to match_stored and match_failed for the test's length was told."""
    told: list[tuple[str, dict]] = []

    def on_stored(sender, **payload):
        told.append(("stored", {**payload, "in_transaction": transaction.get_connection().in_atomic_block}))

    def on_failed(sender, **payload):
        told.append(("failed", payload))

    events.match_stored.connect(on_stored)
    events.match_failed.connect(on_failed)
    yield told
    events.match_stored.disconnect(on_stored)
    events.match_failed.disconnect(on_failed)


def test_a_stored_match_is_told_with_its_stored_games_inside_the_transaction(house_match, sent, heard):
    assert matches.play(house_match.pk, worker="test:1") is True
    [(what, payload)] = heard
    assert what == "stored" and payload["in_transaction"]
    assert payload["match"].pk == house_match.pk
    assert payload["versions"] == house_match.ordered_versions()
    assert [game.pk for game in payload["games"]] == list(
        Game.objects.filter(match=house_match).order_by("index").values_list("pk", flat=True)
    )
    assert len(payload["result"].games) == 2


def test_a_handler_that_fails_leaves_nothing_stored(house_match, sent, monkeypatch):
    def broken(sender, **payload):
        raise RuntimeError("a consumer of stored matches broke")

    events.match_stored.connect(broken)
    try:
        with pytest.raises(RuntimeError, match="a consumer of stored matches broke"):
            matches.play(house_match.pk, worker="test:1")
    finally:
        events.match_stored.disconnect(broken)
    house_match.refresh_from_db()
    assert house_match.status != Match.Status.DONE
    assert not Game.objects.filter(match=house_match).exists()


def test_a_match_given_up_is_told_with_its_reason(house_match, sent, heard, settings):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 1
    # its runs' workers all died without a trace
    Match.objects.filter(pk=house_match.pk).update(attempts=matches.MAX_SILENT_RUNS)
    assert matches.play(house_match.pk, worker="test:1") is False
    [(what, payload)] = heard
    assert what == "failed" and payload["match"].pk == house_match.pk
    assert f"gave up after {matches.MAX_SILENT_RUNS} runs whose workers stopped" in payload["reason"]
    assert Match.objects.get(pk=house_match.pk).status == Match.Status.FAILED


def test_storing_imports_none_of_the_consumers_of_a_stored_match():
    import ast
    from pathlib import Path

    source = Path(matches.__file__).read_text()
    imported = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("league.arena.")
    }
    consumers = ("coop", "ladder", "tournaments", "scrims", "uploads.validation")
    assert not {module for module in imported for name in consumers if module.startswith(f"league.arena.{name}")}
