"""The co-op challenge ladders in the API: seasons, deals side by side, results and leaderboards, each checked
against the games as stored (not against the aggregates the endpoints read)."""

from __future__ import annotations

import statistics

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.arena.coop import challenges
from league.arena.coop import results as coop_results
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import DealResult, Game, SeasonRating
from tests.league.coop_helpers import record_coop


def stored_cards(season, players):
    """{version id: {deal: cards left}} from the stored games of the season's `players`-seat ladder."""
    cards: dict[int, dict[int, int]] = {}
    for game in Game.objects.filter(match__seed=season.seed, match__players=players).prefetch_related("seats"):
        (version,) = {seat.version_id for seat in game.seats.all()}
        cards.setdefault(version, {})[game.match.first_deal + game.index] = game.score
    return cards


def test_a_season_lists_its_deals_with_their_seeds_page_by_page(league, api):
    season = league["season"]
    first = api().get(f"/api/seasons/{season.pk}/deals/?page_size=3").json()
    second = api().get(first["next"]).json()
    rows = first["results"] + second["results"]
    assert first["count"] == 4 and second["next"] is None
    assert [row["seed"] for row in rows] == season.seeds()
    assert [row["url"] for row in rows] == [f"/api/seasons/{season.pk}/deals/{deal}/" for deal in range(4)]
    detail = api().get(f"/api/seasons/{season.pk}/").json()
    assert (detail["seed"], detail["deals"], detail["team_sizes"], detail["current"]) == (season.seed, 4, [1, 2], True)
    assert api().get(f"/api/seasons/{season.pk}/deals/?page=3&page_size=3").status_code == 404


def test_a_deal_shows_every_versions_cards_left_linked_to_its_game(league, api):
    season = league["season"]
    body = api().get(f"/api/seasons/{season.pk}/deals/2/").json()
    assert (body["season"], body["deal"], body["seed"]) == (season.pk, 2, season.deal_seed(2))
    assert [(row["players"], row["bot"]["name"], row["cards_left"]) for row in body["results"]] == [
        (1, "pal", 0),
        (1, "solo", 12),
        (2, "solo", 0),
        (2, "pal", 1),
    ]
    for row in body["results"]:
        game = Game.objects.get(pk=row["game"])
        assert (game.seed, game.score, game.match.players) == (season.deal_seed(2), row["cards_left"], row["players"])
        assert row["game_url"] == f"/api/games/{game.pk}/" and row["replay_url"] == f"/games/{game.pk}/"
        assert api().get(row["game_url"]).json()["score"] == row["cards_left"]
    pairs = api().get(f"/api/seasons/{season.pk}/deals/2/?players=2").json()["results"]
    assert [row["bot"]["name"] for row in pairs] == ["solo", "pal"]


def test_results_match_a_recomputation_from_the_stored_games(league, api):
    season = league["season"]
    rows = api().get(f"/api/seasons/{season.pk}/results/").json()["results"]
    assert {(row["players"], row["version"]["id"]) for row in rows} == {
        (players, version) for players in (1, 2) for version in stored_cards(season, players)
    }
    for row in rows:
        cards = list(stored_cards(season, row["players"])[row["version"]["id"]].values())
        assert row["deals"] == len(cards) and row["wins"] == cards.count(0)
        assert row["mean_cards_left"] == pytest.approx(statistics.fmean(cards))
        assert row["median_cards_left"] == statistics.median(cards)
        assert row["histogram"] == [cards.count(left) for left in range(99)]
        low, high = coop_results.wilson(cards.count(0), len(cards))
        assert row["win_interval"] == pytest.approx({"low": low, "high": high})
        rating = SeasonRating.objects.get(season=season, players=row["players"], version_id=row["version"]["id"])
        assert row["rating"]["elo"] == pytest.approx(rating.elo) and row["rating"]["comparisons"] == 4
    # Per team size, best rated first. Solo: solo beat pal on deals 0 and 3, pal won 2, deal 1 drew.
    solo = [row for row in rows if row["players"] == 1]
    assert [(r["rating"]["wins"], r["rating"]["losses"], r["rating"]["draws"]) for r in solo] in (
        [(2, 1, 1), (1, 2, 1)],
        [(1, 2, 1), (2, 1, 1)],
    )
    assert [row["players"] for row in rows] == [1, 1, 2, 2]
    assert [row["rating"]["elo"] for row in rows[2:]] == sorted(
        (row["rating"]["elo"] for row in rows[2:]), reverse=True
    )


def test_results_filter_by_bot_version_and_team_size(league, api, alice, make_version):
    season = league["season"]
    newer = make_version(alice, "solo", game="the-game")
    record_coop(season, newer, 1, [0, 0])
    url = f"/api/seasons/{season.pk}/results/"
    mine = api().get(url, {"bot": league["solo"].pk}).json()["results"]
    assert sorted((row["version"]["number"], row["players"], row["on_ladder"]) for row in mine) == [
        (1, 1, False),
        (1, 2, False),
        (2, 1, True),
    ]
    (only,) = api().get(url, {"version": newer.pk}).json()["results"]
    assert (only["deals"], only["wins"], only["rating"]) == (2, 2, None)  # not refitted yet: unrated
    assert {row["players"] for row in api().get(url, {"players": 2}).json()["results"]} == {2}
    error = api().get(url, {"players": "six"}).json()["error"]
    assert error["status"] == 400 and "players" in error["fields"]


def test_the_leaderboard_ranks_ladder_versions_as_the_site_does(
    league, api, alice, make_version, django_capture_on_commit_callbacks
):
    season = league["season"]
    body = api().get(f"/api/seasons/{season.pk}/leaderboard/").json()
    ranked = [row for row in body["results"] if row["rank"] is not None]
    assert [row["rank"] for row in ranked] == [1, 2] and body["results"][-1]["bot"]["name"] == "expert-the-game"
    assert body["results"][-1]["rank"] is None and body["results"][-1]["deals"] == 0  # the yardstick, not played
    assert [row["rating"]["elo"] for row in ranked] == sorted((row["rating"]["elo"] for row in ranked), reverse=True)
    second = api().get(f"/api/seasons/{season.pk}/leaderboard/", {"page_size": 1, "page": 2}).json()["results"]
    assert second[0]["rank"] == 2  # the rank is kept across pages
    with django_capture_on_commit_callbacks(execute=True):  # the board's cached pages are stale after the commit
        newer = make_version(alice, "solo", game="the-game")  # the new version replaces v1 on the board
    names = {row["bot"]["name"]: row for row in api().get(f"/api/seasons/{season.pk}/leaderboard/").json()["results"]}
    assert names["solo"]["version"]["id"] == newer.pk and names["solo"]["rank"] is None


def test_seasons_filter_by_game_and_current(league, api):
    old = league["season"]
    new = challenges.start_season("the-game", deals=2, team_sizes=[1])
    extreme = challenges.start_season("extreme", deals=2, team_sizes=[1])
    listed = api().get("/api/seasons/").json()["results"]
    assert [row["id"] for row in listed] == [extreme.pk, new.pk, old.pk]  # newest first
    current = api().get("/api/seasons/", {"game": "the-game", "current": "true"}).json()["results"]
    assert [row["id"] for row in current] == [new.pk]
    assert api().get("/api/seasons/", {"game": "face-to-face"}).status_code == 400


def test_every_list_is_a_constant_number_of_queries(league, api, alice, bob, make_version):
    season = league["season"]
    urls = [
        "/api/seasons/",
        f"/api/seasons/{season.pk}/deals/",
        f"/api/seasons/{season.pk}/deals/1/",
        f"/api/seasons/{season.pk}/results/",
        f"/api/seasons/{season.pk}/leaderboard/",
    ]

    def counts():
        found = []
        for url in urls:
            caches["default"].clear()  # the leaderboard's pages are cached: count the queries that build one
            with CaptureQueriesContext(connection) as queries:
                assert api().get(url).status_code == 200
            found.append(len(queries))
        return found

    before = counts()
    for k in range(6):
        version = make_version(alice if k % 2 else bob, f"more{k}", game="the-game")
        record_coop(season, version, 1 + k % 2, [k, 1, 2, 3])
    for players in season.team_sizes:
        refits.refit(RatingPool.coop(season, players))
    assert DealResult.objects.filter(season=season).count() == 4 * 4 + 6 * 4
    assert counts() == before
    with CaptureQueriesContext(connection) as queries:
        api().get(urls[-1])
    assert len(queries) == 1  # the season: the page came from the cache


def test_the_leaderboards_list_points_a_coop_game_to_its_current_seasons_board(league, api):
    season = league["season"]
    boards = {row["game"]: row["url"] for row in api().get("/api/leaderboards/").json()}
    assert boards["face-to-face"] == "/api/leaderboards/face-to-face/"
    assert boards[season.game] == f"/api/seasons/{season.pk}/leaderboard/"
    assert api().get(boards[season.game]).status_code == 200
    refused = api().get(f"/api/leaderboards/{season.game}/")
    assert refused.status_code == 404 and boards[season.game] in refused.json()["error"]["message"]
    other = next(game for game in boards if game not in ("face-to-face", season.game))
    assert boards[other] is None  # no season of that game yet
