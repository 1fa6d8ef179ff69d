"""Ratings are refit from every stored rated game, and the leaderboard shows them per bot."""

import pytest

from league import ratings
from league.arena import ladder
from league.arena.models import Rating, RatingFit


def test_it_fits_every_rated_game(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 0, 0, 1])
    record_games(b, a, [1, 0])  # b is seat 0 here: a wins one, b wins one
    record_games(b, c, [0, 0, 1])
    record_games(a, c, [0, 1], rated=False)  # unrated (validation) games never count
    assert ladder.refit("face-to-face") is True
    expected = ratings.fit_ratings(
        [
            (a.pk, b.pk, 1),
            (a.pk, b.pk, 1),
            (a.pk, b.pk, 1),
            (a.pk, b.pk, 0),
            (b.pk, a.pk, 0),
            (b.pk, a.pk, 1),
            (b.pk, c.pk, 1),
            (b.pk, c.pk, 1),
            (b.pk, c.pk, 0),
        ],
        prior_games=2.0,
    )
    stored = {r.version_id: r for r in Rating.objects.all()}
    assert set(stored) == {a.pk, b.pk, c.pk}
    for pk, rating in expected.items():
        row = stored[pk]
        assert row.elo == pytest.approx(rating.elo) and row.low == pytest.approx(rating.low)
        assert (row.games, row.wins, row.losses) == (rating.games, rating.wins, rating.losses)
    assert (stored[a.pk].games, stored[a.pk].wins, stored[a.pk].losses) == (6, 4, 2)
    assert stored[a.pk].elo > stored[b.pk].elo
    assert stored[a.pk].last_played is not None
    assert RatingFit.objects.get(game="face-to-face").games == 9


def test_an_older_refit_never_overwrites_a_newer_one(alice, bob, make_version, record_games):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 0])
    stale_counts = ladder.rated_games("face-to-face")
    record_games(a, b, [1, 1, 1, 1])
    assert ladder.refit("face-to-face") is True
    newest = Rating.objects.get(version=a).elo
    # A refit that read the games before the last match was stored arrives late: it is dropped.
    original = ladder.rated_games
    ladder.rated_games = lambda game: stale_counts
    try:
        assert ladder.refit("face-to-face") is False
    finally:
        ladder.rated_games = original
    assert Rating.objects.get(version=a).elo == newest


def test_leaderboard_shows_each_bots_newest_active_version(alice, bob, make_version, record_games):
    a1 = make_version(alice, "a")
    b = make_version(bob, "b")
    record_games(a1, b, [0, 0, 0])
    ladder.refit("face-to-face")
    a2 = make_version(alice, "a")  # newer, not yet rated
    rows = ladder.leaderboard("face-to-face")
    assert [(r.rank, r.version) for r in rows] == [(1, b), (None, a2)]
    record_games(a2, b, [0, 0, 0, 0, 0])
    ladder.refit("face-to-face")
    rows = ladder.leaderboard("face-to-face")
    assert [(r.rank, r.version) for r in rows] == [(1, a2), (2, b)]
    assert rows[0].rating.wins == 5 and rows[0].rating.win_percent == 100.0
