"""Leaderboards: one row per bot with its ladder version, ranked by Elo across pages, in a bounded number of queries."""

import pytest

from league.arena.ladder import leaderboards, refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import Bot, BotVersion, Rating


def rate(version: BotVersion, elo: float) -> None:
    Rating.objects.create(version=version, game="face-to-face", elo=elo, low=elo - 50, high=elo + 50, games=10)


def test_pages_keep_the_rank_and_put_unrated_bots_last(alice, bob, make_version):
    versions = [make_version(alice if k % 2 else bob, f"bot{k:02}") for k in range(7)]
    for k, version in enumerate(versions[:5]):
        rate(version, 1400 + 10 * k)
    make_version(alice, "coop", game="the-game")  # another game's ladder
    first = leaderboards.leaderboard_page("face-to-face", 1, per_page=3)
    assert (first.number, first.num_pages, first.count, first.has_previous, first.has_next) == (1, 3, 7, False, True)
    assert [(row.rank, row.version) for row in first.rows] == [(1, versions[4]), (2, versions[3]), (3, versions[2])]
    second = leaderboards.leaderboard_page("face-to-face", 2, per_page=3)
    assert [(row.rank, row.version) for row in second.rows] == [(4, versions[1]), (5, versions[0]), (None, versions[5])]
    assert second.start_index == 4
    last = leaderboards.leaderboard_page("face-to-face", 99, per_page=3)  # out of range: the last page
    assert (last.number, [(row.rank, row.version) for row in last.rows]) == (3, [(None, versions[6])])
    assert last.has_previous and not last.has_next
    assert leaderboards.leaderboard_page("face-to-face", "x", per_page=3).number == 1
    assert [row.bot.full_name for row in leaderboards.top("face-to-face", 2)] == ["bob/bot04", "alice/bot03"]
    assert leaderboards.top("extreme", 5) == []
    assert leaderboards.leaderboard_page("extreme", 1).rows == []


def test_a_page_takes_the_same_few_queries_however_long_the_ladder(
    alice, bob, make_version, django_assert_max_num_queries
):
    for k in range(60):
        version = make_version(alice if k % 2 else bob, f"bot{k:02}")
        if k % 3:
            rate(version, 1500 + k)
    with django_assert_max_num_queries(3):  # the count, the page and the row above it, the first row's rank
        page = leaderboards.leaderboard_page("face-to-face", 2, per_page=15)
        names = [(row.bot.owner.username, row.version.label, row.rating and row.rating.elo) for row in page.rows]
    assert len(names) == 15 and all(elo is not None for _, _, elo in names)
    with django_assert_max_num_queries(4):  # a page where the rated rows end: the unrated rows' query too
        page = leaderboards.leaderboard_page("face-to-face", 2, per_page=25)
        names = [(row.bot.owner.username, row.version.label, row.rating and row.rating.elo) for row in page.rows]
    assert len(names) == 25
    assert [elo is None for _, _, elo in names] == [False] * 15 + [True] * 10
    with django_assert_max_num_queries(1):
        rows = leaderboards.top("face-to-face", 5)
        [(row.bot.full_name, row.version.number, row.rating.elo) for row in rows]


def test_the_ladder_follows_each_bots_newest_active_version(alice, bob, make_version, record_games, sent):
    a1 = make_version(alice, "a")
    b = make_version(bob, "b")
    record_games(a1, b, [0, 0, 0])
    refits.refit(RatingPool.ladder("face-to-face"))
    a2 = make_version(alice, "a", status="validating")  # not on the ladder until validated
    assert Bot.objects.get(pk=a1.bot_id).active_version == a1
    assert a2.mark_validated(True)
    assert Bot.objects.get(pk=a1.bot_id).active_version == a2
    rows = leaderboards.top("face-to-face", 10)
    assert [(r.rank, r.version) for r in rows] == [(1, b), (None, a2)]
    a3 = make_version(alice, "a", status="validating")
    assert a3.mark_validated(False, "crash")
    assert Bot.objects.get(pk=a1.bot_id).active_version == a2  # a failed version changes nothing
    record_games(a2, b, [0, 0, 0, 0, 0])
    refits.refit(RatingPool.ladder("face-to-face"))
    rows = leaderboards.top("face-to-face", 10)
    assert [(r.rank, r.version) for r in rows] == [(1, a2), (2, b)]
    assert rows[0].rating.wins == 5 and rows[0].rating.win_percent == 100.0


@pytest.mark.django_db(transaction=True)
def test_validation_tells_the_leaderboard_once_it_commits(alice, make_version):
    from league.arena.lib.signals import leaderboard_changed

    heard = []
    leaderboard_changed.connect(lambda sender, game, **kw: heard.append(game), weak=False, dispatch_uid="test")
    try:
        version = make_version(alice, "a", status="validating")
        assert heard == []
        version.mark_validated(True)
        assert heard == ["face-to-face"]
        make_version(alice, "a", status="validating").mark_validated(False, "crash")
        assert heard == ["face-to-face"]  # the ladder version did not change
    finally:
        leaderboard_changed.disconnect(dispatch_uid="test")
