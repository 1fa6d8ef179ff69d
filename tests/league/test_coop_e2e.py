"""End to end with a real Celery worker: three bots play a 20-deal season of The Game, the worker's beat schedules
the chunks, and the standings and ratings equal a recomputation from the stored logs; a new season starts cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.defaultfilters import floatformat  # the page's own rounding (half up)
from django.urls import reverse

import bots.house
from league.arena.coop import challenges
from league.arena.coop import leaderboards as coop_leaderboards
from league.arena.ladder import bradley_terry
from league.arena.ladder.pools import RatingPool
from league.arena.models import Bot, BotVersion, DealResult, Match, RatingFit, SeasonRating
from league.arena.uploads.house import house_version
from tests.league.coop_helpers import comparisons, figures, replayed_results

HOUSE = Path(bots.house.__file__).parent
DEALS = 20


def test_three_bots_play_a_season_through_celery_and_a_new_season_starts_cleanly(
    client, django_user_model, workers, wait_for
):
    season = challenges.start_season("the-game", deals=DEALS, chunk=5, team_sizes=[1])
    worker = workers("w1", ARENA_COOP_INTERVAL="1", ARENA_COOP_MAX_PENDING="4", ARENA_VALIDATION_GAMES="2")
    alice = django_user_model.objects.create_user("alice", password="correct horse battery")
    client.force_login(alice)
    upload = SimpleUploadedFile("bot.py", (HOUSE / "greedy.py").read_bytes())
    form = {"name": "greedy-copy", "game": "the-game", "description": "", "file": upload}
    response = client.post(reverse("new-bot"), form)
    assert response.status_code == 302
    house_version("house:random", "the-game")
    wait_for("the validation", lambda: Bot.objects.get(name="greedy-copy").active_version_id is not None, worker)
    members = {v.pk for v in challenges.members("the-game")}
    assert len(members) == 3 and house_version("house:expert", "the-game").pk in members

    key = RatingPool.coop(season, 1).key

    def season_played() -> bool:
        done = DealResult.objects.filter(season=season, players=1).count() == 3 * DEALS
        fit = RatingFit.objects.filter(game=key, games=3 * DEALS, pending=False, claim_token=None).exists()
        return done and fit

    wait_for("the season's 60 games and their refit", season_played, worker, timeout=300)
    chunks = Match.objects.filter(seed=season.seed)
    assert chunks.count() == 3 * DEALS // 5 and not chunks.exclude(status="done").exists()
    assert BotVersion.objects.get(pk=next(iter(members))).deal_results.count() == DEALS

    # Everything shown, recomputed from the stored logs alone.
    results = replayed_results(season, 1)
    assert set(results) == members and all(sorted(r) == list(range(DEALS)) for r in results.values())
    board = coop_leaderboards.leaderboard_page(season, 1, 1)
    page = client.get(reverse("ladder", args=["the-game"])).content.decode()
    for row in board.rows:
        deals, wins, mean, median = figures(list(results[row.version.pk].values()))
        assert (row.figures.deals, row.figures.wins, row.figures.median) == (deals, wins, median)
        assert row.figures.mean == pytest.approx(mean)
        assert floatformat(mean, 1) in page and f"{deals} / {DEALS}" in page
    compared = comparisons(results)
    players = sorted(members)
    index = {pk: k for k, pk in enumerate(players)}
    refit = bradley_terry.fit_counts(
        players,
        [index[first] for first, _ in compared],
        [index[second] for _, second in compared],
        wins_a=[c[0] for c in compared.values()],
        wins_b=[c[1] for c in compared.values()],
        draws=[c[2] for c in compared.values()],
        prior_games=settings.ARENA_RATING_PRIOR_GAMES,
        anchor=1500.0,
    )
    shown = {r.version_id: r for r in SeasonRating.objects.filter(season=season, players=1)}
    for pk, rating in refit.items():
        assert shown[pk].elo == pytest.approx(rating.elo, abs=1e-4)
        assert (shown[pk].wins, shown[pk].losses, shown[pk].draws) == (rating.wins, rating.losses, rating.draws)
        assert f"{floatformat(rating.elo, 0)} ± {floatformat((rating.high - rating.low) / 2, 0)}" in page

    # A new season: the old one's results stay exactly as they were, and the new deals are queued and played.
    before = sorted(DealResult.objects.filter(season=season).values_list("version_id", "deal", "cards_left"))
    ratings_before = sorted(SeasonRating.objects.filter(season=season).values_list("version_id", "elo"))
    new = challenges.start_season("the-game", deals=DEALS, chunk=5, team_sizes=[1])
    wait_for(
        "the new season's first results",
        lambda: DealResult.objects.filter(season=new).count() >= 5,
        worker,
        timeout=120,
    )
    assert sorted(DealResult.objects.filter(season=season).values_list("version_id", "deal", "cards_left")) == before
    assert sorted(SeasonRating.objects.filter(season=season).values_list("version_id", "elo")) == ratings_before
    for game in DealResult.objects.filter(season=new).select_related("game"):
        assert game.game.seed == new.deal_seed(game.deal)
    assert Match.objects.filter(seed=new.seed).exists() and new.seed != season.seed
