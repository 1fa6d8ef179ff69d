"""Every list a page shows is bounded: long ones are paged (?page=N), the rest cut to their newest rows."""

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from league.arena.models import Game, GameSeat, Match, MatchEntry, Rating, Tournament
from league.arena.play import views as play_views
from league.arena.profiles import bot_page as bot_pages
from league.arena.templatetags.pages import page_links
from league.arena.tournaments import views as tournament_views
from league.arena.uploads import views as upload_views


def rate(version, elo, games=10):
    return Rating.objects.create(
        version=version, game="face-to-face", elo=elo, low=elo - 50, high=elo + 50, games=games, wins=games // 2
    )


@pytest.fixture
def ladder_of(alice, make_version):
    """ladder_of(n): n bots on the Face to Face ladder, bot-000 rated highest, each 10 Elo below the one before."""

    def make(n, unrated=0):
        versions = [make_version(alice, f"bot-{k:03d}") for k in range(n + unrated)]
        for k, version in enumerate(versions[:n]):
            rate(version, 2000 - 10 * k)
        return versions

    return make


ALICE_LINK = '<a href="/users/alice/">alice</a>/'


def ranks_and_names(page: str) -> list[tuple[str, str]]:
    marked = r'<td class="num">(?:<span class="not-separated"[^>]*>≈</span> )?(\d+|–)</td>'
    return re.findall(marked + r'\s*<td class="name"><a href="/bots/\d+/">([\w-]+)</a>', page)


def test_page_links_show_both_ends_and_the_neighbourhood():
    assert page_links(1, 1) == [1]
    assert page_links(1, 3) == [1, 2, 3]
    assert page_links(6, 20) == [1, None, 4, 5, 6, 7, 8, None, 20]
    assert page_links(2, 20) == [1, 2, 3, 4, None, 20]
    assert page_links(4, 20) == [1, 2, 3, 4, 5, 6, None, 20]
    assert page_links(20, 20) == [1, None, 18, 19, 20]


def test_the_leaderboard_shows_fifty_rows_a_page_and_keeps_the_rank(client, ladder_of):
    ladder_of(110, unrated=2)
    url = reverse("ladder", args=["face-to-face"])
    first = client.get(url).content.decode()
    rows = ranks_and_names(first)
    assert rows[0] == ("1", "bot-000") and rows[-1] == ("50", "bot-049") and len(rows) == 50
    second = ranks_and_names(client.get(url, {"page": 2}).content.decode())
    assert second[0] == ("51", "bot-050") and second[-1] == ("100", "bot-099")
    third = ranks_and_names(client.get(url, {"page": 3}).content.decode())
    assert third == [(str(101 + k), f"bot-{100 + k:03d}") for k in range(10)] + [("–", "bot-110"), ("–", "bot-111")]
    assert "112 bots · page 1 of 3" in first


def test_the_pager_links_each_page_by_keyboard_reachable_anchors(client, ladder_of):
    ladder_of(120)
    page = client.get(reverse("ladder", args=["face-to-face"]), {"page": 2}).content.decode()
    pager = page[page.index('<nav class="pager"') :]
    pager = pager[: pager.index("</nav>")]
    assert 'aria-label="Ladder pages"' in pager
    assert '<a href="?page=1" rel="prev">' in pager and '<a href="?page=3" rel="next">' in pager
    assert '<a href="?page=2" aria-current="page"' in pager
    assert re.findall(r'href="\?page=(\d+)"', pager) == ["1", "1", "2", "3", "3"]


def test_a_single_page_has_no_pager(client, ladder_of):
    ladder_of(3)
    assert 'class="pager"' not in client.get(reverse("ladder", args=["face-to-face"])).content.decode()


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "2.5", "", "9" * 5000, "4"])
def test_a_bad_page_number_is_a_404_not_an_error(client, ladder_of, bad):
    ladder_of(120)  # three pages
    assert client.get(reverse("ladder", args=["face-to-face"]), {"page": bad}).status_code == 404
    assert client.get(reverse("tournaments"), {"page": bad}).status_code == 404


def test_an_empty_ladder_still_has_its_first_page(client, db):
    page = client.get(reverse("ladder", args=["extreme"]), {"page": 1})
    assert page.status_code == 200 and "No bot plays The Game Extreme yet." in page.content.decode()
    assert client.get(reverse("ladder", args=["extreme"]), {"page": 2}).status_code == 404


def test_home_shows_the_top_five_only(client, ladder_of):
    ladder_of(8)
    page = client.get(reverse("home")).content.decode()
    assert [name for _, name in ranks_and_names(page.replace(ALICE_LINK, ""))] == [f"bot-{k:03d}" for k in range(5)]
    assert "bot-005" not in page


def test_the_tournament_list_is_paged(client, db):
    Tournament.objects.bulk_create([Tournament(name=f"Cup {k:02d}") for k in range(30)])
    url = reverse("tournaments")
    first = client.get(url).content.decode()
    assert first.count("<tr>") == 1 + tournament_views.TOURNAMENTS_PER_PAGE and 'href="?page=2"' in first
    second = client.get(url, {"page": 2}).content.decode()
    assert second.count("<tr>") == 1 + 30 - tournament_views.TOURNAMENTS_PER_PAGE
    assert client.get(url, {"page": 3}).status_code == 404


def test_a_bot_page_shows_its_newest_games_only(client, alice, bob, make_version, record_games):
    mine, theirs = make_version(alice, "alpha"), make_version(bob, "beta")
    matches = [record_games(mine, theirs, [0]) for _ in range(bot_pages.GAMES_PER_PAGE + 5)]
    record_games(mine, theirs, [0], kind="validation", rated=False)
    page = client.get(reverse("bot", args=[mine.bot.pk])).content.decode()
    shown = [int(pk) for pk in re.findall(r'<a href="/games/(\d+)/">', page)]
    newest = [m.played_games.get().pk for m in reversed(matches)]
    assert shown == newest[: bot_pages.GAMES_PER_PAGE]
    assert "won: the opponent was stuck" in page and "bob/beta" in strip_tags(page)


def test_a_bot_page_shows_its_newest_versions_and_counts_the_rest(client, alice, make_version):
    for _ in range(bot_pages.VERSIONS_SHOWN + 3):
        version = make_version(alice, "prolific")
    page = client.get(reverse("bot", args=[version.bot.pk])).content.decode()
    assert f"<td>v{bot_pages.VERSIONS_SHOWN + 3}</td>" in page and "<td>v4</td>" in page and "<td>v3</td>" not in page
    assert "and 3 older versions, not shown." in page
    status = client.get(reverse("bot-status", args=[version.bot.pk])).json()
    assert [v["number"] for v in status["versions"]] == list(range(bot_pages.VERSIONS_SHOWN + 3, 3, -1))


def test_my_bots_are_paged_with_each_newest_version(client, alice, make_version):
    for k in range(upload_views.BOTS_PER_PAGE + 2):
        make_version(alice, f"b{k:03d}")
    make_version(alice, "b000", status="validating")
    client.force_login(alice)
    first = client.get(reverse("my-bots")).content.decode()
    assert first.count("<tr>") == 1 + upload_views.BOTS_PER_PAGE
    assert re.search(r">b000</a></td>\s*<td>[^<]*</td>\s*<td>v2 ", first)
    assert '<span class="badge validating">' in first
    second = client.get(reverse("my-bots"), {"page": 2}).content.decode()
    assert second.count("<tr>") == 3 and ">b051</a>" in second


def test_the_match_page_pages_its_games(client, alice, bob, make_version):
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    n = play_views.GAMES_PER_PAGE + 30
    match = Match.objects.create(kind="exhibition", game="face-to-face", games=n, seed="s", status="done")
    MatchEntry.objects.bulk_create(
        [MatchEntry(match=match, index=0, version=a), MatchEntry(match=match, index=1, version=b)]
    )
    games = Game.objects.bulk_create(
        Game(match=match, index=k, game="face-to-face", seed=f"s{k}", start_seat=0, termination="stuck",
             winner_seat=k % 2, log_zlib=b"")
        for k in range(n)
    )  # fmt: skip
    GameSeat.objects.bulk_create(
        GameSeat(game=game, seat=seat, version=version) for game in games for seat, version in enumerate((a, b))
    )
    first = client.get(reverse("match", args=[match.pk])).content.decode()
    assert first.count("alice/alpha · bob/beta") == play_views.GAMES_PER_PAGE
    assert f"Games 1 to {play_views.GAMES_PER_PAGE} of {n}" in first
    second = client.get(reverse("match", args=[match.pk]), {"page": 2}).content.decode()
    assert second.count("alice/alpha · bob/beta") == 30 and f'<td class="num">{n}</td>' in second
    assert client.get(reverse("match", args=[match.pk]), {"page": 3}).status_code == 404
