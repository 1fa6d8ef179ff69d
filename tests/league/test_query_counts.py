"""Each page runs a fixed number of queries however many bots, games or entries it shows, and none reads an upload."""

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.arena.ladder import refits
from league.arena.ladder import views as ladder_views
from league.arena.ladder.pools import RatingPool
from league.arena.models import BotUpload, Game, Tournament, TournamentEntry

# The most queries each page may run on a cold cache (an anonymous visitor; a logged-in one adds the session's 2).
# A ladder page after the first also reads the row above it (is its first row separated from it?); the page where the
# rated rows end also reads the first unrated ones (the board reads its rated rows in the order of the Elo index). The
# home page reads each co-op game's current season and its board's top (3 queries a game, cached until its board
# changes).
MOST = {
    "home": 9, "ladder": 3, "ladder page 2": 4, "bot": 14, "tournament": 5, "live": 5, "match": 5,
    "owner": 3, "tournament matches": 5, "pairing matches": 5, "docs": 0, "rules": 0,
}  # fmt: skip


def build(n, tag, owner, make_version, record_games):
    """n new ladder bots, the first of which played n matches; an n-entry tournament; a match of n games."""
    versions = [make_version(owner, f"{tag}-{k:02d}") for k in range(n)]
    for k in range(1, n):
        record_games(versions[0], versions[k], [0, 1])
    record_games(versions[0], versions[1], [0])
    cup = Tournament.objects.create(name=f"Cup {tag}", status="running", games_per_pairing=2)
    TournamentEntry.objects.bulk_create(TournamentEntry(tournament=cup, bot=v.bot, version=v) for v in versions)
    for k in range(n):
        record_games(versions[k], versions[(k + 1) % n], [0, 1], tournament=cup, kind="tournament")
    long_match = record_games(versions[1], versions[2], [k % 2 for k in range(n)])
    refits.refit(RatingPool.ladder("face-to-face"))
    return {
        "home": reverse("home"),
        "ladder": reverse("ladder", args=["face-to-face"]),
        "ladder page 2": reverse("ladder", args=["face-to-face"]) + "?page=2",
        "bot": reverse("bot", args=[versions[0].bot.pk]),
        "tournament": reverse("tournament", args=[cup.pk]),
        "live": reverse("tournament-live", args=[cup.pk]),
        "match": reverse("match", args=[long_match.pk]),
        "owner": reverse("user", args=[owner.username]),
        "tournament matches": reverse("tournament-matches", args=[cup.pk]) + f"?bot={versions[0].bot_id}",
        "pairing matches": reverse("tournament-matches", args=[cup.pk])
        + f"?bot={versions[0].bot_id}&vs={versions[1].bot_id}",
        "docs": reverse("docs"),
        "rules": reverse("doc", args=["rules"]),
    }


def queries_per_page(client, pages: dict[str, str]) -> dict[str, int]:
    counts = {}
    for name, url in pages.items():
        for cache in caches.all():
            cache.clear()
        with CaptureQueriesContext(connection) as run:
            assert client.get(url).status_code == 200, url
        counts[name] = len(run)
    return counts


@pytest.fixture
def small_ladder_pages(monkeypatch):
    monkeypatch.setattr(ladder_views, "LADDER_PER_PAGE", 2)  # so that page 2 exists with 3 bots as with 30


def test_no_page_runs_more_queries_for_more_bots_games_or_entries(
    client, alice, make_version, record_games, small_ladder_pages
):
    few = queries_per_page(client, build(3, "few", alice, make_version, record_games))
    many_pages = build(30, "many", alice, make_version, record_games)
    many = queries_per_page(client, many_pages)
    assert all(many[name] <= few[name] for name in few), (few, many)  # fewer where the few's pages reach unrated bots
    assert sum(few.values()) - sum(many.values()) <= 2, (few, many)  # the home page's top and ladder page 2's
    assert all(few[name] <= most for name, most in MOST.items()), few
    assert Game.objects.filter(match__tournament__name="Cup many").count() == 60


@pytest.mark.parametrize("page", sorted(MOST))
def test_each_page_stays_within_its_query_budget(
    client, alice, make_version, record_games, small_ladder_pages, django_assert_max_num_queries, page
):
    url = build(12, "t", alice, make_version, record_games)[page]
    for cache in caches.all():
        cache.clear()
    with django_assert_max_num_queries(MOST[page]):
        client.get(url)


def test_the_match_page_does_not_query_per_game(client, alice, make_version, record_games, django_assert_num_queries):
    match = record_games(make_version(alice, "a"), make_version(alice, "b"), [0, 1] * 40)
    with django_assert_num_queries(MOST["match"]):
        page = client.get(reverse("match", args=[match.pk])).content.decode()
    assert page.count('<td class="name hide-narrow">alice/a · alice/b</td>') == 80
    assert page.count("alice/a wins: alice/b was stuck") == page.count("alice/b wins: alice/a was stuck") == 40


def test_no_page_reads_an_uploaded_file(client, alice, bob, make_version, record_games, small_ladder_pages):
    pages = build(4, "u", alice, make_version, record_games)
    version = make_version(alice, "u-00")  # a second version: the bot's versions list and status
    failed = make_version(bob, "broken", status="failed")
    game = Game.objects.filter(match__kind="ladder").first()
    client.force_login(alice)
    urls = [
        *pages.values(),
        reverse("my-bots"),
        reverse("new-bot"),
        reverse("bot-versions", args=[version.bot.pk]),
        reverse("bot-status", args=[version.bot.pk]),
        reverse("bot", args=[failed.bot.pk]),
        reverse("tournaments"),
        reverse("game-log", args=[game.pk]),
    ]
    upload_table = BotUpload._meta.db_table
    for url in urls:
        with CaptureQueriesContext(connection) as run:
            assert client.get(url).status_code in (200, 409), url  # 409: the fixture's stub logs do not replay
        read = [query["sql"] for query in run if upload_table in query["sql"]]
        assert not read, f"{url} read uploads: {read}"
