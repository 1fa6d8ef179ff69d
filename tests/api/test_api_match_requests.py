"""/api/match-requests/: asking for a scrim, the refusals and the quota in the API's error body, listing one's own,
and a request's detail with its games and replays."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from league.arena.models import Match, MatchRequest
from league.arena.play import results
from league.arena.scrims import requests as scrims
from tests.league.conftest import _played_game as played_game


def test_the_owner_asks_and_gets_the_request_back(api, alice, league, sent, django_capture_on_commit_callbacks):
    ace, bee = league["ace"], league["bee"]
    with django_capture_on_commit_callbacks(execute=True):
        response = api(alice).post("/api/match-requests/", {"bot": ace.pk, "opponent": bee.pk, "games": 20})
    assert response.status_code == 201, response.content
    body = response.json()
    scrim = MatchRequest.objects.get(pk=body["id"])
    assert response["Location"] == f"/api/match-requests/{scrim.pk}/"
    assert (body["bot"]["id"], body["opponent"]["id"], body["games"]) == (ace.pk, bee.pk, 20)
    assert body["version"]["id"] == league["ace_v1"].pk and body["opponent_version"]["id"] == league["bee_v1"].pk
    assert (body["status"], body["games_played"], body["result"]) == ("queued", 0, "no games played yet")
    assert body["page"] == f"/scrims/{scrim.pk}/" and body["played_games"] == [] and body["matches"] == []
    assert ("release_scrims", ()) in sent


def test_refusals_use_the_one_error_body(api, alice, league):
    client, ace, bee = api(alice), league["ace"], league["bee"]
    itself = client.post("/api/match-requests/", {"bot": ace.pk, "opponent": ace.pk, "games": 2}, format="json")
    assert itself.status_code == 400
    assert itself.json()["error"]["message"] == "a bot cannot scrim against itself; choose another opponent"
    missing = client.post("/api/match-requests/", {"bot": ace.pk, "opponent": 99999, "games": 2}, format="json")
    assert missing.json()["error"]["fields"] == {"opponent": ["there is no bot 99999"]}
    many = client.post("/api/match-requests/", {"bot": ace.pk, "opponent": bee.pk, "games": 500}, format="json")
    assert many.status_code == 400 and "games" in many.json()["error"]["fields"]
    mistyped = client.post("/api/match-requests/", {"bot": "ace", "opponent": bee.pk, "games": 2}, format="json")
    assert mistyped.status_code == 400 and mistyped.json()["error"]["fields"] == {
        "bot": ["A valid integer is required."]
    }


def test_the_quota_is_a_429_with_retry_after(api, alice, league, settings):
    settings.ARENA_SCRIM_GAMES_PER_DAY = 10  # the league fixture's request already asked for 4
    client, body = api(alice), {"bot": league["ace"].pk, "opponent": league["bee"].pk, "games": 7}
    response = client.post("/api/match-requests/", body, format="json")
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "quota_exceeded"
    assert error["message"].startswith("you may ask for 10 scrim games in 24 hours and have asked for 4; 6 left now")
    assert 86000 < int(response["Retry-After"]) <= 86400
    assert client.post("/api/match-requests/", {**body, "games": 6}, format="json").status_code == 201


def test_a_user_lists_only_their_own_requests(api, alice, bob, league, staff):
    mine = scrims.request_scrim(bob, league["bee"], league["ace"], 3)
    assert [r["id"] for r in api(bob).get("/api/match-requests/").json()["results"]] == [mine.pk]
    assert [r["id"] for r in api(alice).get("/api/match-requests/").json()["results"]] == [league["scrim"].pk]
    assert api(staff).get("/api/match-requests/").json()["results"] == []  # staff read any, list their own
    filtered = api(alice).get(f"/api/match-requests/?bot={league['bee'].pk}").json()
    assert filtered["count"] == 0


def test_the_detail_shows_the_result_and_the_replays(api, alice, league, django_assert_max_num_queries):
    scrim = league["scrim"]
    (match,) = scrims.release()
    with transaction.atomic():
        Match.objects.filter(pk=match.pk).update(status="done", games_done=4)
        played = [played_game(i, w) for i, w in enumerate([0, 0, 1, None])]
        results.save_games(match, [league["ace_v1"], league["bee_v1"]], played, {}, timezone.now())
    body = api(alice).get(f"/api/match-requests/{scrim.pk}/").json()
    assert (body["status"], body["games_played"], body["wins"], body["losses"], body["draws"]) == ("done", 4, 2, 1, 1)
    assert body["result"] == "alice/ace beat bob/bee 2–1, 1 drawn"
    assert body["matches"] == [match.pk]
    games = list(match.played_games.order_by("index"))
    assert [g["replay"] for g in body["played_games"]] == [f"/games/{g.pk}/" for g in games]
    assert body["played_games"][0]["result"] == "alice/ace wins: bob/bee was stuck"
    assert body["played_games"][0]["log_url"] == f"/api/games/{games[0].pk}/log"
    for _ in range(5):
        scrims.request_scrim(alice, league["ace"], league["bee"], 1)
    with django_assert_max_num_queries(8):  # a page of requests costs the same whatever its length
        listed = api(alice).get("/api/match-requests/").json()
    assert listed["count"] == 6
    assert listed["results"][-1]["result"] == "alice/ace beat bob/bee 2–1, 1 drawn"
