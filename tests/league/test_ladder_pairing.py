"""The ladder pairs the members with the fewest games first, against the closest rating."""

from league.arena.ladder import scheduling
from league.arena.models import Match, Rating, RatingFit, ScheduleLock


def test_pair_takes_fewest_games_then_closest_rating(alice, make_version):
    a, b, c, d = (make_version(alice, name) for name in "abcd")
    games = {a.pk: 30, b.pk: 0, c.pk: 10, d.pk: 20}
    elo = {a.pk: 1600, b.pk: 1500, c.pk: 1590, d.pk: 1390}
    pairs = scheduling.pair([a, b, c, d], games, elo, room=5)
    # b has fewest games; closest to 1500 is c (90) before d (110); then d is left with a.
    assert pairs == [(b, c), (d, a)]


def test_pair_never_pairs_a_member_with_itself(alice, make_version):
    a = make_version(alice, "a")
    assert scheduling.pair([a], {}, {}, room=3) == []


def test_members_are_the_newest_active_version_of_each_bot(alice, bob, make_version):
    old = make_version(alice, "a")
    new = make_version(alice, "a")
    make_version(alice, "a", status="failed")
    b = make_version(bob, "b")
    make_version(bob, "coop", game="the-game")
    assert old not in scheduling.members("face-to-face")
    assert sorted(v.pk for v in scheduling.members("face-to-face")) == sorted([new.pk, b.pk])


def test_schedule_queues_ladder_matches_up_to_the_limit(
    alice, bob, make_version, settings, sent, django_capture_on_commit_callbacks
):
    settings.ARENA_LADDER_MAX_PENDING = 2
    settings.ARENA_LADDER_GAMES = 6
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


def test_schedule_prefers_members_without_games(alice, make_version, settings, sent):
    settings.ARENA_LADDER_MAX_PENDING = 1
    a, b, c = (make_version(alice, name) for name in "abc")
    for version, games in ((a, 40), (b, 2)):
        Rating.objects.create(version=version, game="face-to-face", elo=1500, low=1400, high=1600, games=games)
    (match,) = scheduling.schedule("face-to-face")
    assert set(match.ordered_versions()) == {b, c}
