"""/api/games/<id>/analysis/: asking (202, then the shared analysis), reading (404 until asked, progress, figures),
the daily limit as a 429 with Retry-After, and validation games kept private. Analyses run at 2 rollouts a turn."""

from __future__ import annotations

import pytest

from league.api import analyses
from league.arena.models import GameAnalysis
from tests.league.replay_helpers import sample_log, store_game, versions_for


@pytest.fixture(autouse=True)
def _cheap(settings):
    settings.ARENA_ANALYSIS_ROLLOUTS = 2
    settings.ARENA_ANALYSES_PER_DAY = 1


@pytest.fixture
def game(alice, bob, make_version):
    log = sample_log("face-to-face")
    return store_game(log, versions_for(log, [alice, bob], make_version))


def test_anyone_signed_in_asks_then_everyone_reads_the_shared_analysis(
    api, alice, bob, game, sent, django_capture_on_commit_callbacks
):
    url = f"/api/games/{game.pk}/analysis/"
    missing = api().get(url)
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == f"game {game.pk} has not been analysed: POST to ask for it"
    assert api().post(url).status_code == 401
    with django_capture_on_commit_callbacks(execute=True):
        asked = api(bob).post(url)
    assert asked.status_code == 202, asked.content
    body = asked.json()
    assert (body["status"], body["turns_done"], body["turns_total"], body["turns"]) == ("queued", 0, game.turns, None)
    analysis = GameAnalysis.objects.get(game=game)
    assert sent == [("analyse_game", (analysis.pk,))]
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="running", turns_done=7)
    running = api().get(url).json()
    assert (running["status"], running["turns_done"]) == ("running", 7)
    # What the task stores (tests/league/test_game_analyses.py runs it): the API shows it as it is.
    turns = [{**analyses.TURN, "turn": number, "seat": (number + 1) % 2} for number in range(1, game.turns + 1)]
    result = {"turns": turns, "accuracy": {"0": 88.4, "1": 97.0}}
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="done", result=result)
    done = api().get(url).json()
    assert done["status"] == "done" and done["turns_done"] == game.turns == len(done["turns"])
    assert done["accuracy"] == {"0": 88.4, "1": 97.0}
    assert done["turns"][0] == {key: value for key, value in turns[0].items() if key in done["turns"][0]}
    assert {"turn", "seat", "played", "best", "before", "after", "best_value", "loss", "mark"} <= set(done["turns"][0])
    assert done["turns"][0] == turns[0], "every figure the analysis keeps, the cards left too"
    again = api(alice).post(url)  # alice's limit of one is untouched: the analysis is bob's, shared
    assert again.status_code == 200 and again.json()["turns"] == done["turns"] and len(sent) == 1


def test_past_the_daily_limit_the_api_answers_429_with_retry_after(api, alice, game, sent):
    other = store_game(sample_log("face-to-face"), [seat.version for seat in game.seats.order_by("seat")], index=1)
    assert api(alice).post(f"/api/games/{game.pk}/analysis/").status_code == 202
    refused = api(alice).post(f"/api/games/{other.pk}/analysis/")
    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "quota_exceeded"
    assert error["message"].startswith("you may ask for 1 analyses in 24 hours and have asked for 1")
    assert 86000 < int(refused["Retry-After"]) <= 86400
    assert not GameAnalysis.objects.filter(game=other).exists()


def test_a_validation_game_is_analysed_for_its_owner_alone(api, alice, bob, make_version):
    log = sample_log("face-to-face")
    game = store_game(log, versions_for(log, [alice, bob], make_version), kind="validation")
    assert api(bob).post(f"/api/games/{game.pk}/analysis/").status_code == 404
    assert api(alice).post(f"/api/games/{game.pk}/analysis/").status_code == 202


def test_the_owner_sets_the_bots_replay_and_analysis_choices(api, alice, bob, make_version):
    bot = make_version(alice, "chooser").bot
    url = f"/api/bots/{bot.pk}/"
    assert api(bob).patch(url, {"analyse_losses": True}, format="json").status_code == 403
    changed = api(alice).patch(url, {"analyse_losses": True, "output_public": True}, format="json")
    assert changed.status_code == 200 and changed.json()["analyse_losses"] and changed.json()["output_public"]
    bot.refresh_from_db()
    assert bot.analyse_losses and bot.output_public
    assert api().get(url).json()["output_public"] is True
