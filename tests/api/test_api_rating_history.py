"""/api/bots/<id>/ratings/ gives one point per refit that moved the version's rating, oldest first."""

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool


def test_the_ratings_endpoint_lists_every_refit_that_moved_the_rating(api, alice, bob, make_version, record_games):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 1, 0])
    refits.refit(RatingPool.ladder("face-to-face"))
    refits.refit(RatingPool.ladder("face-to-face"))  # nothing new: no second point
    record_games(a, b, [0, 0])
    refits.refit(RatingPool.ladder("face-to-face"))

    body = api().get(f"/api/bots/{a.bot_id}/ratings/").json()

    history = next(row for row in body if row["version"]["number"] == a.number)["points"]
    assert [point["games"] for point in history] == [3, 5]
    assert history[0]["at"] < history[1]["at"]
    assert history[1]["elo"] > history[0]["elo"]  # a won both new games
