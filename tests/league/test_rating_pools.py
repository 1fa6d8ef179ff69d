"""A rating pool is a value: which game, and for a co-op ladder which season and team size; its key round-trips."""

import pytest

from league.arena.coop import challenges
from league.arena.ladder.pools import RatingPool
from league.arena.models import DealPair, PairResult


def test_a_ladder_pool_is_named_by_its_game():
    pool = RatingPool.ladder("face-to-face")
    assert (pool.key, pool.is_coop, str(pool)) == ("face-to-face", False, "face-to-face")
    assert RatingPool.from_key("face-to-face") == pool


def test_a_coop_pool_names_its_season_and_team_size(db):
    season = challenges.start_season("the-game", deals=4, chunk=2, team_sizes=[1, 3])
    pool = RatingPool.coop(season, 3)
    assert (pool.game, pool.season, pool.players, pool.is_coop) == ("the-game", season.pk, 3, True)
    assert pool.key == f"coop:{season.pk}:3"
    assert RatingPool.from_key(pool.key) == pool  # the game comes back from the season
    assert pool.pairs().model is DealPair and RatingPool.ladder("face-to-face").pairs().model is PairResult


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("the-game", "names no rating pool"),
        ("chess", "names no rating pool"),
        ("coop:x:2", "is not a co-op rating key"),
        ("coop:7", "is not a co-op rating key"),
        ("coop:999999:2", "season 999999, which does not exist"),
    ],
)
def test_a_key_that_names_no_pool_is_refused_by_name(db, key, says):
    with pytest.raises(ValueError, match=says):
        RatingPool.from_key(key)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"game": "face-to-face", "season": 1, "players": 2}, "has no season"),
        ({"game": "the-game"}, "has a season and a team size"),
        ({"game": "extreme", "season": 1}, "names both its season and its team size"),
    ],
)
def test_a_pool_that_mixes_the_two_kinds_cannot_be_made(fields, says):
    with pytest.raises(ValueError, match=says):
        RatingPool(**fields)
