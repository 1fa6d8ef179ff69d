"""Every list endpoint runs the same few queries whatever the league's size: pages stay fast at scale."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.arena.lib import signals
from league.arena.models import Tournament, TournamentEntry

LISTS = [
    "/api/users/",
    "/api/users/u0/",
    "/api/bots/",
    "/api/bots/?active=true&game=face-to-face",
    "/api/bots/{bot}/versions/",
    "/api/bots/{bot}/ratings/",
    "/api/tournaments/",
    "/api/tournaments/{tournament}/",
    "/api/tournaments/{tournament}/standings/",
    "/api/tournaments/{tournament}/crosstable/",
    "/api/matches/",
    "/api/matches/?bot={bot}",
    "/api/matches/?kind=ladder&rated=true",
    "/api/matches/{match}/",
    "/api/matches/{match}/games/",
    "/api/leaderboards/face-to-face/",
]
MAX_QUERIES = 6


def grow(django_user_model, make_version, record_games, size: int) -> dict:
    """`size` users with a bot of 2 versions each, a match between each neighbour pair, all in one tournament."""
    versions = []
    for n in range(size):
        user = django_user_model.objects.create_user(f"u{n}")
        make_version(user, f"b{n}")
        versions.append(make_version(user, f"b{n}"))
    tournament = Tournament.objects.create(name="t", status=Tournament.Status.RUNNING)
    TournamentEntry.objects.bulk_create(
        [TournamentEntry(tournament=tournament, bot=version.bot, version=version) for version in versions]
    )
    matches = [
        record_games(a, b, [0, 1, 0], tournament=tournament, kind="tournament")
        for a, b in zip(versions, versions[1:], strict=False)
    ]
    record_games(versions[0], versions[1], [1])  # and a ladder match
    return {"bot": versions[0].bot.pk, "tournament": tournament.pk, "match": matches[0].pk}


def query_counts(api, user, ids) -> dict[str, int]:
    """Queries per URL with nothing cached (standings and leaderboards are kept in the page cache)."""
    client, counts = api(user), {}
    for path in LISTS:
        for cache in caches.all(initialized_only=True):
            cache.clear()
        url = path.format(**ids)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, (url, response.content[:200])
        counts[path] = len(queries)
    return counts


@pytest.mark.parametrize("signed_in", [False, True])
def test_lists_run_a_constant_number_of_queries(api, django_user_model, make_version, record_games, signed_in):
    small = grow(django_user_model, make_version, record_games, 3)
    user = django_user_model.objects.get(username="u0") if signed_in else None
    before = query_counts(api, user, small)
    grow_more = [make_version(django_user_model.objects.create_user(f"x{n}"), f"x{n}") for n in range(12)]
    for a, b in zip(grow_more, grow_more[1:], strict=False):
        record_games(a, b, [0, 1])
        record_games(make_version(a.bot.owner, a.bot.name), b, [1])
    after = query_counts(api, user, small)
    assert after == before
    assert max(after.values()) <= MAX_QUERIES, after


def test_the_big_lists_fit_the_query_bound(
    api, django_user_model, make_version, record_games, django_assert_max_num_queries
):
    ids = grow(django_user_model, make_version, record_games, 8)
    client = api()
    for path in ("/api/bots/", "/api/matches/", "/api/leaderboards/face-to-face/", "/api/tournaments/"):
        with django_assert_max_num_queries(MAX_QUERIES):
            assert client.get(path.format(**ids)).status_code == 200


def test_a_list_total_is_reused_for_a_while_but_pages_are_fresh(api, alice, make_version, settings):
    settings.API_COUNT_SECONDS = 30
    make_version(alice, "one")
    client = api()
    assert client.get("/api/bots/").json()["count"] == 1
    make_version(alice, "two")
    listed = client.get("/api/bots/").json()
    assert listed["count"] == 1 and [bot["name"] for bot in listed["results"]] == ["one", "two"]
    assert client.get("/api/bots/?game=face-to-face").json()["count"] == 2  # another query, its own total
    settings.API_COUNT_SECONDS = 0
    assert client.get("/api/bots/").json()["count"] == 2


def test_cached_standings_and_leaderboards_follow_the_league(
    api, alice, bob, make_version, record_games, django_capture_on_commit_callbacks
):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    tournament = Tournament.objects.create(name="t", status=Tournament.Status.RUNNING)
    for version in (a, b):
        TournamentEntry.objects.create(tournament=tournament, bot=version.bot, version=version)
    client = api()
    url = f"/api/tournaments/{tournament.pk}/standings/"
    assert [row["games"] for row in client.get(url).json()] == [0, 0]
    with django_capture_on_commit_callbacks(execute=True):
        record_games(a, b, [0, 0, 1], tournament=tournament, kind="tournament")
        signals.send_tournament_changed(tournament.pk)  # as matches.store does after storing
    standings = client.get(url).json()
    assert [(row["bot"]["name"], row["points"]) for row in standings] == [("a", 2.0), ("b", 1.0)]
    crosstable = client.get(f"/api/tournaments/{tournament.pk}/crosstable/").json()
    assert crosstable["rows"][0]["results"] == [{"opponent": b.pk, "points": 2.0, "games": 3}]

    assert [row["rank"] for row in client.get("/api/leaderboards/face-to-face/").json()["results"]] == [None, None]
    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool

    with django_capture_on_commit_callbacks(execute=True):
        refits.refit(RatingPool.ladder("face-to-face"))
    ranked = client.get("/api/leaderboards/face-to-face/").json()["results"]
    assert [(row["rank"], row["bot"]["name"]) for row in ranked] == [(1, "a"), (2, "b")]


@pytest.mark.parametrize("query", ["bot={ace}", "version={ace_v1}", "bot={bee}&rated=true"])
def test_a_bot_or_version_filter_lists_the_same_matches_past_the_constant_ids_limit(
    league, api, alice, monkeypatch, query
):
    from league.api import filters

    url = "/api/matches/?page_size=200&" + query.format(**{name: getattr(v, "pk", v) for name, v in league.items()})

    def listed() -> list[int]:
        return [match["id"] for match in api(alice).get(url).json()["results"]]

    as_constants = listed()
    monkeypatch.setattr(filters, "MATCH_IDS_AS_CONSTANTS", 1)  # every bot here played more: a subquery
    assert listed() == as_constants and len(as_constants) >= 2
    assert as_constants == sorted(as_constants, reverse=True)
