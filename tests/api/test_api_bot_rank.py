"""A bot read alone carries its rank on its game's leaderboard: a user finds its row on page ceil(rank / size)."""

from __future__ import annotations

from django.utils import timezone

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool


def test_a_bots_rank_is_its_row_on_the_leaderboard(api, alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    client = api()
    assert client.get(f"/api/bots/{a.bot_id}/").json()["rank"] is None  # not rated yet
    record_games(a, b, [0, 0, 1])
    record_games(b, c, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    for version in (a, b, c):
        rank = client.get(f"/api/bots/{version.bot_id}/").json()["rank"]
        page = client.get("/api/leaderboards/face-to-face/", {"page_size": 1, "page": rank}).json()["results"]
        assert [(row["rank"], row["bot"]["id"]) for row in page] == [(rank, version.bot_id)]
    assert [client.get(f"/api/bots/{v.bot_id}/").json()["rank"] for v in (a, b, c)] == [1, 2, 3]
    assert "rank" not in client.get("/api/bots/").json()["results"][0]  # a list would cost a query per bot

    b.bot.retired_at = timezone.now()
    b.bot.save(update_fields=["retired_at"])
    assert client.get(f"/api/bots/{b.bot_id}/").json()["rank"] is None  # off the ladder
    assert client.get(f"/api/bots/{c.bot_id}/").json()["rank"] == 2  # the ladder without b, as the board ranks it
