"""What owners are told, from the events that tell it: a validation's verdict, a scrim that finished or stopped, a
tournament they entered that finished. Each is told once, linking to where to look."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

import bots.house
from league.arena.models import Match, Notification, Tournament, TournamentEntry
from league.arena.play import matches
from league.arena.scrims import requests as scrims
from league.arena.tournaments import starting
from league.arena.uploads import changes as bot_changes
from league.arena.uploads.house import house_version

GREEDY = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()


def told(user) -> list[tuple[str, str, str]]:
    return list(Notification.objects.filter(recipient=user).order_by("pk").values_list("kind", "text", "url"))


def test_a_passed_validation_is_told_to_the_owner(alice, make_version, django_capture_on_commit_callbacks):
    version = make_version(alice, "ace", status="validating")
    with django_capture_on_commit_callbacks(execute=True):
        assert version.mark_validated(True)
    assert told(alice) == [
        (
            "version-validated",
            "ace v1 passed its validation and plays on the ladder.",
            reverse("bot", args=[version.bot_id]) + "#versions",
        )
    ]


def test_a_failed_validation_is_told_with_its_reason(alice, make_version, django_capture_on_commit_callbacks):
    version = make_version(alice, "ace", status="validating")
    reason = "game 2: crash: KeyError: 'p9'\nmore lines"
    with django_capture_on_commit_callbacks(execute=True):
        assert version.mark_validated(False, reason)
        assert not version.mark_validated(True)  # already decided: nothing more is told
    ((kind, text, url),) = told(alice)
    assert kind == "version-failed"
    assert text == "ace v1 failed its validation: game 2: crash: KeyError: 'p9'"
    assert url.endswith("#versions")


def test_a_verdict_rolled_back_is_not_told(alice, make_version, django_capture_on_commit_callbacks):
    from django.db import transaction

    version = make_version(alice, "ace", status="validating")
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        with transaction.atomic():
            version.mark_validated(True)
            raise RuntimeError("the store failed")
    assert told(alice) == []


def test_a_finished_scrim_is_told_once_with_its_score(alice, make_version, sent, django_capture_on_commit_callbacks):
    ace = make_version(alice, "ace", source=GREEDY)
    scrim = scrims.request_scrim(alice, ace.bot, house_version("house:random").bot, 12)
    for chunk in range(2):
        (match,) = scrims.release()
        with django_capture_on_commit_callbacks(execute=True):
            assert matches.play(match.pk, worker="test:1")
        assert len(told(alice)) == chunk  # told after the last chunk only
    ((kind, text, url),) = told(alice)
    scrim.refresh_from_db()
    scrims.attach_progress([scrim])
    assert kind == "scrim-finished" and url == reverse("scrim", args=[scrim.pk])
    assert text == f"Scrim finished: {scrim.result} (12 games)."
    assert scrims.tell_if_finished(scrim.pk) and len(told(alice)) == 1  # told once


def test_a_scrim_stopped_because_a_bot_left_is_told_why(alice, bob, make_version):
    ace, bee = make_version(alice, "ace"), make_version(bob, "bee")
    scrim = scrims.request_scrim(alice, ace.bot, bee.bot, 10)
    bot_changes.retire(bee.bot)
    assert scrims.release() == []
    ((kind, text, _),) = told(alice)
    assert kind == "scrim-finished"
    assert text.startswith("Scrim of alice/ace against bob/bee stopped: bob/bee has left the ladder")
    assert told(bob) == []
    assert scrim.pk


def test_a_scrim_whose_match_failed_for_good_is_told(alice, bob, make_version, settings):
    ace, bee = make_version(alice, "ace"), make_version(bob, "bee")
    scrim = scrims.request_scrim(alice, ace.bot, bee.bot, 10)
    (match,) = scrims.release()
    Match.objects.filter(pk=match.pk).update(attempts=matches.MAX_SILENT_RUNS)  # its workers all died
    assert not matches.play(match.pk, worker="test:1")  # given up
    ((kind, text, url),) = told(alice)
    assert kind == "scrim-finished" and "stopped: the server could not play" in text
    assert url == reverse("scrim", args=[scrim.pk])


def test_a_finished_tournament_tells_each_entrant_where_they_placed(
    alice, bob, make_version, sent, django_capture_on_commit_callbacks
):
    ace = make_version(alice, "ace", source=GREEDY)
    ace2 = make_version(alice, "ace-two", source=GREEDY + b"\n# two\n")
    bee = make_version(bob, "bee")
    rnd = house_version("house:random")
    tournament = Tournament.objects.create(name="Autumn cup", games_per_pairing=2)
    for version in (ace, ace2, bee, rnd):
        TournamentEntry.objects.create(tournament=tournament, bot=version.bot)
    planned = starting.start(tournament.pk)
    for match in planned:
        with django_capture_on_commit_callbacks(execute=True):
            assert matches.play(match.pk, worker="test:1")
    assert told(alice) == []  # finishing is the finish task's work
    assert starting.finish_if_done(tournament.pk)
    assert not starting.finish_if_done(tournament.pk)  # finished once, told once
    ((kind, text, url),) = told(alice)
    assert kind == "tournament-finished" and url == reverse("tournament", args=[tournament.pk])
    assert text.startswith("Tournament “Autumn cup” finished: ")
    assert "ace placed " in text and "ace-two placed " in text and " of 4 (" in text and "points from 6 games" in text
    ((_, bob_text, _),) = told(bob)
    assert "bee placed " in bob_text and "ace placed" not in bob_text
    assert Notification.objects.count() == 2  # the house bots' owner is told nothing


@pytest.mark.parametrize(
    ("number", "words"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (22, "22nd")]
)
def test_places_in_words(number, words):
    assert starting.ordinal(number) == words
