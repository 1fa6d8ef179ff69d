"""Starting a tournament freezes versions and queues every match of its format, exactly once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from league.arena.models import Match, Tournament, TournamentEntry
from league.arena.tournaments import starting as tournaments


@pytest.fixture
def three(alice, bob, make_version):
    return [make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")]


def enter(tournament, versions):
    for version in versions:
        TournamentEntry.objects.create(tournament=tournament, bot=version.bot)


def test_round_robin_queues_one_match_per_pairing(three, sent, django_capture_on_commit_callbacks):
    t = Tournament.objects.create(name="Cup", games_per_pairing=4, turn_seconds=0.5)
    enter(t, three)
    with django_capture_on_commit_callbacks(execute=True):
        matches = tournaments.start(t.pk)
    assert len(matches) == 3
    pairs = {tuple(v.pk for v in m.ordered_versions()) for m in matches}
    assert pairs == {(three[0].pk, three[1].pk), (three[0].pk, three[2].pk), (three[1].pk, three[2].pk)}
    assert all((m.games, m.turn_seconds, m.kind, m.rated) == (4, 0.5, "tournament", True) for m in matches)
    assert sorted(sent) == sorted(("play_match", (m.pk,)) for m in matches)
    t.refresh_from_db()
    assert t.status == "running" and t.progress() == (0, 12)


def test_double_round_robin_swaps_the_order(three, sent):
    t = Tournament.objects.create(name="Cup", format="double-round-robin", games_per_pairing=2)
    enter(t, three)
    matches = tournaments.start(t.pk)
    pairs = sorted(tuple(v.pk for v in m.ordered_versions()) for m in matches)
    assert len(pairs) == 6 and len(set(pairs)) == 6
    assert all((b, a) in pairs for a, b in pairs)


def test_it_freezes_the_newest_active_version(alice, bob, make_version, sent):
    a1 = make_version(alice, "a")
    a2 = make_version(alice, "a")
    make_version(alice, "a", status="failed")
    b = make_version(bob, "b")
    t = Tournament.objects.create(name="Cup")
    enter(t, [a1, b])
    tournaments.start(t.pk)
    assert {e.bot.name: e.version for e in t.entries.all()} == {"a": a2, "b": b}
    make_version(alice, "a")  # a later upload does not join a running tournament
    assert all(m.ordered_versions()[0] in (a2, b) for m in t.matches.all())


def test_it_starts_only_once(three, sent):
    t = Tournament.objects.create(name="Cup")
    enter(t, three)
    assert len(tournaments.start(t.pk)) == 3
    assert tournaments.start(t.pk) == []
    assert Match.objects.count() == 3


def test_it_needs_two_active_participants(alice, make_version, sent):
    t = Tournament.objects.create(name="Lonely")
    enter(t, [make_version(alice, "a"), make_version(alice, "b", status="failed")])
    with pytest.raises(tournaments.TournamentError, match="needs at least two participants with an active version"):
        tournaments.start(t.pk)
    t.refresh_from_db()
    assert t.status == "draft" and not Match.objects.exists()


def test_scheduled_tournaments_start_when_due(three, sent):
    due = Tournament.objects.create(name="Due", scheduled_at=timezone.now() - timedelta(seconds=1))
    later = Tournament.objects.create(name="Later", scheduled_at=timezone.now() + timedelta(hours=1))
    enter(due, three)
    enter(later, three)
    assert tournaments.start_due() == 1
    due.refresh_from_db()
    later.refresh_from_db()
    assert (due.status, later.status) == ("running", "draft")


def test_it_finishes_when_every_match_is_done(three, sent):
    t = Tournament.objects.create(name="Cup")
    enter(t, three)
    tournaments.start(t.pk)
    assert tournaments.finish_if_done(t.pk) is False
    t.matches.update(status=Match.Status.DONE)
    assert tournaments.finish_if_done(t.pk) is True
    t.refresh_from_db()
    assert t.status == "finished" and t.finished_at is not None
