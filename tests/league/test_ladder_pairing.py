"""The ladder's scheduler reads members, ratings and meetings from the database and queues the choice's pairs."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from django.utils import timezone

from league.arena.ladder import scheduling
from league.arena.lib import signals
from league.arena.models import BotVersion, Match, PairResult, Rating, RatingFit, ScheduleLock
from league.arena.uploads.house import house_version


def rate(version, elo, margin, games):
    Rating.objects.create(
        version=version, game="face-to-face", elo=elo, low=elo - margin, high=elo + margin, games=games
    )


def meet(a, b, games):
    first, second = sorted([a.pk, b.pk])
    PairResult.objects.create(
        game="face-to-face",
        first_id=first,
        second_id=second,
        first_wins=games // 2,
        second_wins=games - games // 2,
        last_played=timezone.now(),
    )


def test_variance_comes_from_the_stored_95_percent_interval():
    assert scheduling.variance(1400.0, 1600.0) == pytest.approx((100.0 / 1.959963984540054) ** 2)
    assert scheduling.variance(-math.inf, math.inf) == math.inf


def test_members_are_the_newest_active_version_of_each_bot(alice, bob, make_version):
    old = make_version(alice, "a")
    new = make_version(alice, "a")
    make_version(alice, "a", status="failed")
    b = make_version(bob, "b")
    make_version(bob, "coop", game="the-game")
    assert old not in scheduling.members("face-to-face")
    assert sorted(v.pk for v in scheduling.members("face-to-face")) == sorted([new.pk, b.pk])


def test_pair_never_pairs_a_member_with_itself(alice, make_version):
    a = make_version(alice, "a")
    assert scheduling.pair([a], {}, {}, room=3) == []


def test_schedule_queues_ladder_matches_up_to_the_limit(
    alice, bob, make_version, settings, sent, django_capture_on_commit_callbacks
):
    settings.ARENA_LADDER_MAX_PENDING = 2
    settings.ARENA_LADDER_GAMES = 6
    settings.ARENA_LADDER_PLACEMENT_PARALLEL = 1
    versions = [make_version(alice, n) for n in "abcde"]
    with django_capture_on_commit_callbacks(execute=True):
        first = scheduling.schedule("face-to-face")
    assert len(first) == 2
    assert all((m.kind, m.games, m.rated, m.duplicate) == ("ladder", 6, True, True) for m in first)
    playing = [v for m in first for v in m.ordered_versions()]
    assert len(set(playing)) == 4 and set(playing) <= set(versions)
    assert sorted(sent) == sorted(("play_match", (m.pk,)) for m in first)
    assert scheduling.schedule("face-to-face") == []  # the queue is full
    # The scheduler locks a row of its own, never the ratings' refit state.
    assert ScheduleLock.objects.filter(game="face-to-face").exists() and not RatingFit.objects.exists()
    Match.objects.filter(pk=first[0].pk).update(status=Match.Status.DONE)
    second = scheduling.schedule("face-to-face")
    # Only one member is free besides the finished pair, so the busy ones are not paired again.
    assert len(second) == 1
    assert not set(second[0].ordered_versions()) & set(first[1].ordered_versions())


def test_a_version_being_placed_plays_several_matches_at_once_against_different_opponents(
    alice, bob, make_version, settings, sent
):
    settings.ARENA_LADDER_MAX_PENDING = 4
    settings.ARENA_LADDER_PLACEMENT_PARALLEL = 2
    settled = [make_version(bob, f"s{k}") for k in range(6)]
    for k, version in enumerate(settled):
        rate(version, 1400 + 40 * k, 30, 600)
    newcomer = make_version(alice, "new")
    queued = scheduling.schedule("face-to-face")
    with_newcomer = [m for m in queued if newcomer in m.ordered_versions()]
    assert len(with_newcomer) == 2
    opponents = {v for m in with_newcomer for v in m.ordered_versions()} - {newcomer}
    assert len(opponents) == 2
    everyone = Counter(v.pk for m in queued for v in m.ordered_versions())
    assert all(count == 1 for pk, count in everyone.items() if pk != newcomer.pk)


def test_a_new_version_meets_the_house_bots_first(alice, bob, make_version, settings, sent):
    settings.ARENA_LADDER_MAX_PENDING = 1
    anchors = [house_version(ref) for ref in ("house:random", "house:greedy", "house:expert")]
    for version, elo in zip(anchors, (600, 1400, 1700), strict=True):
        rate(version, elo, 25, 900)
    for k in range(5):
        rate(make_version(bob, f"s{k}"), 1450 + 50 * k, 30, 600)
    newcomer = make_version(alice, "new")
    met = []
    for _ in range(3):
        (match,) = scheduling.schedule("face-to-face")
        versions = match.ordered_versions()
        assert newcomer in versions  # its first matches go to it
        (other,) = set(versions) - {newcomer}
        met.append(other)
        Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
        meet(newcomer, other, 10)
    assert sorted(v.pk for v in met) == sorted(v.pk for v in anchors)


def test_two_bots_that_only_met_each_other_are_paired_with_others(alice, bob, make_version, settings, sent):
    """The issue's lock-on: two similar new bots of one user met in all 16 of their matches."""
    settings.ARENA_LADDER_MAX_PENDING = 3
    settings.ARENA_LADDER_PLACEMENT_MATCHES = 10
    twins = [make_version(alice, "twin-a"), make_version(alice, "twin-b")]
    for twin in twins:
        rate(twin, 1429, 70, 160)
    meet(*twins, 160)
    for k in range(4):
        rate(make_version(bob, f"s{k}"), 1300 + 100 * k, 30, 800)
    for _ in range(20):
        queued = scheduling.schedule("face-to-face")
        assert not any(set(m.ordered_versions()) == set(twins) for m in queued)
        Match.objects.filter(pk__in=[m.pk for m in queued]).update(status=Match.Status.DONE)


def test_a_changed_face_to_face_leaderboard_schedules_the_ladder(
    db, sent, settings, django_capture_on_commit_callbacks
):
    settings.ARENA_LADDER_MAX_PENDING = 4
    with django_capture_on_commit_callbacks(execute=True):
        signals.leaderboard_changed.send(sender=None, game="face-to-face")
        signals.leaderboard_changed.send(sender=None, game="the-game")  # co-op ladders play seasons instead
    assert sent == [("schedule_ladder", ("face-to-face",))]
    settings.ARENA_LADDER_MAX_PENDING = 0  # the ladder is paused
    with django_capture_on_commit_callbacks(execute=True):
        signals.leaderboard_changed.send(sender=None, game="face-to-face")
    assert len(sent) == 1


def test_a_version_becoming_active_has_its_placement_scheduled(
    alice, make_version, sent, django_capture_on_commit_callbacks
):
    version = make_version(alice, "a", status="validating")
    with django_capture_on_commit_callbacks(execute=True):
        version.mark_validated(True)
    assert ("schedule_ladder", ("face-to-face",)) in sent


def test_the_scheduler_passes_ratings_meetings_and_pending_matches_to_the_choice(
    alice, bob, make_version, settings, sent, monkeypatch
):
    settings.ARENA_LADDER_MAX_PENDING = 3
    settings.ARENA_LADDER_GAMES = 10
    settings.ARENA_LADDER_PLACEMENT_PARALLEL = 1
    a, b, c, d = (make_version(alice, name) for name in "abcd")
    rate(a, 1600, 100, 200)
    meet(a, b, 40)
    busy = Match.objects.create_with_entries([c, d], kind=Match.Kind.LADDER, game="face-to-face", games=10)
    seen = {}

    def spy(members, met, room, rng, rules, busy):
        seen.update(members={m.key: m for m in members}, met=dict(met), room=room, rules=rules, busy=set(busy))
        return []

    monkeypatch.setattr(scheduling.pairing, "choose", spy)
    scheduling.schedule("face-to-face")
    assert set(seen["members"]) == {a.pk, b.pk, c.pk, d.pk} and seen["room"] == 2
    assert seen["busy"] == {c.pk, d.pk}  # they are playing
    assert seen["members"][a.pk].elo == 1600 and seen["members"][a.pk].matches == 20
    assert seen["members"][a.pk].variance == pytest.approx(scheduling.variance(1500, 1700))
    assert seen["members"][b.pk].variance == math.inf
    assert seen["met"][tuple(sorted([a.pk, b.pk]))] == 4.0
    assert seen["met"][tuple(sorted([c.pk, d.pk]))] == 1.0
    assert busy.status == Match.Status.QUEUED
    assert seen["rules"].placement_matches == settings.ARENA_LADDER_PLACEMENT_MATCHES


def test_the_settings_defaults_are_the_choices_own(settings):
    from league.arena.ladder.pairing import Rules

    defaults = Rules()
    assert settings.ARENA_LADDER_PLACEMENT_MATCHES == defaults.placement_matches
    assert settings.ARENA_LADDER_FAIR_SHARE == defaults.fair_share


def test_house_bots_play_one_match_at_a_time(bob, make_version, settings, sent):
    settings.ARENA_LADDER_MAX_PENDING = 4
    house_version("house:greedy")
    house_version("house:random")
    queued = scheduling.schedule("face-to-face")
    assert len(queued) == 1
    assert all(v.kind == BotVersion.Kind.HOUSE for v in queued[0].ordered_versions())
    np.testing.assert_equal(len(scheduling.schedule("face-to-face")), 0)
