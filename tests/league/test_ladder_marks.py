"""Ranks with ties, provisional ratings and ranks not separated: the ladder, the bot and owner pages, the API."""

from __future__ import annotations

from django.test import Client

from league.arena.ladder import leaderboards
from league.arena.models import Rating
from league.arena.profiles import bot_page


def rate(version, elo, margin=20.0, games=400):
    return Rating.objects.create(
        version=version, game="face-to-face", elo=elo, low=elo - margin, high=elo + margin, games=games
    )


def test_tied_bots_share_a_rank_and_the_next_skips_on_every_page(
    alice, bob, make_version, django_assert_max_num_queries
):
    versions = {name: make_version(alice if k % 2 else bob, name) for k, name in enumerate("abcde")}
    for name, elo in zip("abcde", (1700.0, 1600.0, 1600.0 + 1e-9, 1600.0, 1500.0), strict=True):
        rate(versions[name], elo)
    page = leaderboards.leaderboard_page("face-to-face", 1, per_page=10)
    assert [row.rank for row in page.rows] == [1, 2, 2, 2, 5]
    # The tie straddles a page boundary: page 2 starts tied with page 1's last row.
    assert [row.rank for row in leaderboards.leaderboard_page("face-to-face", 1, per_page=2).rows] == [1, 2]
    with django_assert_max_num_queries(4):  # a page starting in a tie counts the ranks above it: one more query
        assert [row.rank for row in leaderboards.leaderboard_page("face-to-face", 2, per_page=2).rows] == [2, 2]
    assert [row.rank for row in leaderboards.leaderboard_page("face-to-face", 3, per_page=2).rows] == [5]
    # The bot page and the owner's page say the same.
    for name in "bcd":
        assert bot_page.standing(versions[name].bot).rank == 2
        assert leaderboards.rank_of("face-to-face", versions[name].rating.elo) == 2
    assert bot_page.standing(versions["e"].bot).rank == 5
    html = Client().get(f"/users/{alice.username}/").content.decode()
    bob_html = Client().get(f"/users/{bob.username}/").content.decode()
    ranks = [f'">{rank}</a></td>' for rank in (1, 2, 5)]
    assert ranks[1] in html and ranks[1] in bob_html and ranks[2] in bob_html and ranks[0] in bob_html
    assert '">3</a></td>' not in html + bob_html and '">4</a></td>' not in html + bob_html


def test_adjacent_ranks_whose_intervals_overlap_are_not_separated(alice, bob, make_version):
    top, close, clear, unrated = (make_version(alice, name) for name in ("top", "close", "clear", "unrated"))
    rate(top, 1700.0, margin=30.0)
    rate(close, 1660.0, margin=30.0)  # 1630-1690 overlaps 1670-1730
    rate(clear, 1500.0, margin=30.0)  # 1470-1530 is clear of 1630-1690
    rows = leaderboards.leaderboard_page("face-to-face", 1).rows
    expected = [(top, None), (close, False), (clear, True), (unrated, None)]
    assert [(row.version, row.separated) for row in rows] == expected
    # The first row of a later page is compared with the last of the page before.
    (second,) = leaderboards.leaderboard_page("face-to-face", 2, per_page=1).rows
    assert (second.version, second.separated) == (close, False)


def test_a_rating_is_provisional_with_too_few_games_or_too_wide_an_interval(alice, make_version, settings):
    settings.ARENA_LADDER_PROVISIONAL_GAMES = 100
    settings.ARENA_LADDER_PROVISIONAL_MARGIN = 75.0
    few = rate(make_version(alice, "few"), 1500.0, margin=40.0, games=99)
    wide = rate(make_version(alice, "wide"), 1400.0, margin=80.0, games=500)
    settled = rate(make_version(alice, "settled"), 1300.0, margin=75.0, games=100)
    assert (few.provisional, wide.provisional, settled.provisional) == (True, True, False)
    rows = leaderboards.leaderboard_page("face-to-face", 1).rows
    assert [row.provisional for row in rows] == [True, True, False]


def test_the_ladder_page_marks_both_and_explains_them_in_one_line(alice, make_version, settings):
    settings.ARENA_LADDER_PROVISIONAL_GAMES = 100
    rate(make_version(alice, "top"), 1700.0, margin=30.0)
    rate(make_version(alice, "close"), 1660.0, margin=30.0, games=50)
    html = Client().get("/ladder/face-to-face/").content.decode()
    assert html.count('class="not-separated"') == 2  # the mark on "close", and the legend
    assert html.count('class="provisional"') == 2
    (legend,) = [line for line in html.splitlines() if "ladder-legend" in line]
    assert "not separated" in legend and "provisional" in legend and "fewer than 100 rated games" in legend
    assert "±75 Elo" in legend


def test_the_bot_page_says_provisional(alice, make_version, client):
    version = make_version(alice, "fresh")
    rate(version, 1500.0, margin=120.0, games=20)
    html = client.get(version.bot.get_absolute_url()).content.decode()
    assert "provisional" in html and "still being placed" in html


def test_the_api_gives_ranks_provisional_and_separated(alice, bob, make_version):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(bob, "c")
    rate(a, 1600.0, margin=30.0)
    rate(b, 1600.0, margin=30.0, games=10)
    rate(c, 1400.0, margin=30.0)
    rows = Client().get("/api/leaderboards/face-to-face/").json()["results"]
    assert [(row["rank"], row["rating"]["provisional"], row["separated"]) for row in rows] == [
        (1, False, None),
        (1, True, False),
        (3, False, True),
    ]
    detail = Client().get(f"/api/bots/{b.bot_id}/").json()
    assert detail["active_version"]["rating"]["provisional"] is True
