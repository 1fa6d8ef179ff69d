"""The co-op pages: the challenge leaderboard at /ladder/<game>/, a season's seed list and a deal's results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection
from django.template.defaultfilters import floatformat  # the page's own rounding (half up)
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import bots.house
from league.arena.coop import challenges
from league.arena.coop import leaderboards as coop_leaderboards
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import DealResult, Season
from league.arena.uploads.house import house_version
from tests.league.coop_helpers import figures, play_queued, replayed_results

HOUSE = Path(bots.house.__file__).parent


@pytest.fixture
def played_season(alice, make_version, settings, sent):
    settings.ARENA_COOP_MAX_PENDING = 100
    season = challenges.start_season("the-game", deals=6, chunk=3, team_sizes=[1, 2])
    make_version(alice, "greedy-copy", game="the-game", source=(HOUSE / "greedy.py").read_bytes())
    house_version("house:random", "the-game")
    challenges.schedule("the-game")
    play_queued()
    for players in (1, 2):
        refits.refit(RatingPool.coop(season, players))
    return season


def test_the_ladder_of_a_coop_game_shows_the_challenge_columns(client, played_season):
    page = client.get(reverse("ladder", args=["the-game"])).content.decode()
    assert "challenge ladder" in page and "Cards left: mean" in page and "95% interval" in page and "<svg" in page
    results = replayed_results(played_season, 1)
    rows = coop_leaderboards.leaderboard_page(played_season, 1, 1).rows
    assert [row.rank for row in rows] == [1, 2, 3]
    assert [row.rating.elo for row in rows] == sorted((row.rating.elo for row in rows), reverse=True)
    for row in rows:
        deals, wins, mean, median = figures(list(results[row.version.pk].values()))
        assert (row.figures.deals, row.figures.wins, row.figures.median) == (deals, wins, median)
        assert floatformat(mean, 1) in page and f"{row.figures.deals} / 6" in page
    assert "Elo" in client.get(reverse("ladder", args=["face-to-face"])).content.decode()  # Face to Face unchanged


def test_team_boards_and_seasons_have_their_own_pages(client, played_season):
    page = client.get(reverse("season-ladder", args=[played_season.pk, 2])).content.decode()
    assert "teams of 2" in page.lower() and "6 / 6" in page
    assert client.get(reverse("season-ladder", args=[played_season.pk, 3])).status_code == 404  # not a team size
    assert client.get(reverse("season-ladder", args=[played_season.pk + 99, 1])).status_code == 404
    assert client.get(reverse("season-ladder", args=[played_season.pk, 2]), {"page": 2}).status_code == 404


def test_the_seed_list_is_published_as_a_page_text_and_json(client, played_season):
    seeds = [f"{played_season.seed}:{d}" for d in range(6)]
    text = client.get(reverse("season-seeds-text", args=[played_season.pk]))
    assert text["Content-Type"].startswith("text/plain") and text.content.decode().splitlines() == seeds
    data = json.loads(client.get(reverse("season-seeds-json", args=[played_season.pk])).content)
    assert data["seeds"] == seeds and data["deals"] == 6 and data["game"] == "the-game"
    page = client.get(reverse("season", args=[played_season.pk])).content.decode()
    assert all(seed in page for seed in seeds)


def test_a_deal_page_shows_every_bots_cards_left_with_replay_links(client, played_season):
    page = client.get(reverse("season-deal", args=[played_season.pk, 4])).content.decode()
    for result in DealResult.objects.filter(season=played_season, deal=4).select_related("version__bot"):
        assert f"/games/{result.game_id}/" in page
        assert result.version.bot.name in page
    assert DealResult.objects.filter(season=played_season, deal=4).count() == 6  # 3 bots, solo and pairs
    assert client.get(reverse("season-deal", args=[played_season.pk, 6])).status_code == 404


def test_the_board_is_two_queries_whatever_its_size(alice, make_version, played_season):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            coop_leaderboards.leaderboard_page(played_season, 1, 1)
        return len(captured)

    few = queries()
    for n in range(20):
        make_version(alice, f"more-{n}", game="the-game")
    assert queries() == few == 2


def test_a_game_without_a_season_says_so(client, db):
    assert not Season.objects.exists()
    page = client.get(reverse("ladder", args=["extreme"])).content.decode()
    assert "No season of its challenge ladder has started" in page


def test_a_coop_bots_page_and_a_house_bots_show_the_season_per_team_size(client, played_season):
    from league.arena.coop import bot_results
    from league.arena.models import Bot

    mine = Bot.objects.get(name="greedy-copy")
    page = client.get(reverse("bot", args=[mine.pk])).content.decode()
    section = page[page.index('class="card coop-results"') :]
    section = section[: section.index("</section>")]
    assert f"Season {played_season.number} of The Game" in section
    results = bot_results.season_results(mine)
    for team in results.teams:  # the page's figures are the season's own, recomputed from the logs
        deals, wins, mean, median = figures(
            list(replayed_results(played_season, team.players)[mine.active_version_id].values())
        )
        assert (team.figures.deals, team.figures.wins) == (deals, wins)
        assert f'{floatformat(mean, 1)}</td><td class="num">{floatformat(median, 1)}' in section
        assert team.rank is not None and f'{team.rank} <span class="small muted">of {team.ranked}' in section
    assert section.count("Replay game") == min(10, 6 * 2)
    assert reverse("season-deal", args=[played_season.pk, 0]) in section or "every bot on deal" in section
    house = Bot.objects.get(house_ref="house:random", game="the-game")
    assert "coop-results" in client.get(reverse("bot", args=[house.pk])).content.decode()  # house co-op bots too


def test_the_home_page_shows_the_coop_seasons_beside_the_face_to_face_ladder(client, played_season):
    page = client.get(reverse("home")).content.decode()
    ladders = page[page.index('class="home-ladders"') :]
    assert "Face to Face ladder" in ladders
    coop = ladders[ladders.index('id="home-the-game"') :]
    coop = coop[: coop.index("</section>")]
    assert f"season {played_season.number}" in coop and "greedy-copy" in coop
    assert reverse("ladder", args=["the-game"]) in coop
    assert "No season of its challenge ladder has started" in ladders[ladders.index('id="home-extreme"') :]


def test_a_coop_bots_page_does_not_call_it_unrated(client, played_season):
    from league.arena.models import Bot

    page = client.get(reverse("bot", args=[Bot.objects.get(name="greedy-copy").pk])).content.decode()
    assert "not rated yet" not in page and "No rating yet" not in page
    assert "results, Elo and rank per team size" in page


def test_the_owners_profile_shows_a_coop_bots_season_per_team_size(client, alice, played_season):
    from league.arena.coop import bot_results
    from league.arena.models import Bot

    mine = Bot.objects.get(name="greedy-copy")
    page = client.get(reverse("user", args=[alice.username])).content.decode()
    assert "unrated" not in page and f'href="#coop-{mine.pk}"' in page
    section = page[page.index(f'id="coop-{mine.pk}"') :]
    for team in bot_results.season_results(mine).teams:
        assert f"{floatformat(team.figures.win_percent, 1)} %" in section
        assert f"{team.rank} of {team.ranked}" in section
