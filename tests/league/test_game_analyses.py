"""Game analyses in the league: asked for once per game and precision and shared, run by the task with its
progress kept, limited per user and day, and asked for on their own for an opted-in owner's lost rated games.
Analyses here use 2 rollouts a turn: the figures are bots.analysis's to test, the storing is the league's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from replay_helpers import sample_log, store_game, versions_for

from league.arena.analysis import automatic, blunders, requests, runs
from league.arena.lib import quotas
from league.arena.models import GameAnalysis, GameSeat, Notification
from league.arena.play import events


@pytest.fixture(autouse=True)
def _cheap(settings):
    settings.ARENA_ANALYSIS_ROLLOUTS = 2
    settings.ARENA_ANALYSES_PER_DAY = 2


@pytest.fixture
def ask(django_capture_on_commit_callbacks):
    """requests.ask, its task sent as the transaction commits."""

    def asking(user, game):
        with django_capture_on_commit_callbacks(execute=True):
            return requests.ask(user, game)

    return asking


@pytest.fixture
def game(alice, bob, make_version):
    log = sample_log("face-to-face")
    return store_game(log, versions_for(log, [alice, bob], make_version))


def test_the_task_stores_an_analysis_that_everyone_then_shares(game, alice, bob, sent, ask, monkeypatch):
    monkeypatch.setattr(runs, "PROGRESS_EVERY_SECONDS", 0)
    kept = []
    progress = GameAnalysis.progress
    monkeypatch.setattr(GameAnalysis, "progress", lambda self, *args: kept.append(args[1:]) or progress(self, *args))
    analysis, queued = ask(alice, game)
    assert queued and sent == [("analyse_game", (analysis.pk,))]
    assert (analysis.status, analysis.turns_done, analysis.turns_total) == ("queued", 0, game.turns)
    assert runs.run(analysis.pk)
    assert kept == [(done, game.turns) for done in range(1, game.turns + 1)], "the page's bar follows every turn"
    analysis.refresh_from_db()
    assert analysis.status == "done" and analysis.claim_token is None
    assert analysis.turns_done == analysis.turns_total == game.turns
    turns = analysis.result["turns"]
    assert [turn["turn"] for turn in turns] == list(range(1, game.turns + 1))
    assert set(analysis.result["accuracy"]) == {"0", "1"}
    assert analysis.marked == [
        {"turn": t["turn"], "seat": t["seat"], "mark": t["mark"], "loss": t["loss"]}
        for t in turns
        if t["mark"] in ("mistake", "blunder")
    ]
    assert not runs.run(analysis.pk), "a finished analysis is not run again"
    (notice,) = Notification.objects.filter(recipient=alice)
    assert notice.kind == "analysis-finished" and notice.url == f"/games/{game.pk}/"
    assert notice.text.startswith(f"The analysis of game {game.pk} (The Game: Face to Face, alice/")
    assert "is ready: " in notice.text
    assert not Notification.objects.filter(recipient=bob).exists(), "only the user who asked is told"
    again, queued = ask(bob, game)
    assert again.pk == analysis.pk and not queued and len(sent) == 1
    assert requests.asked_today(bob.pk) == 0, "reading a shared analysis costs nothing"
    described = requests.describe(again)
    assert described["status"] == "done" and described["turns"] == turns


def test_past_the_daily_limit_asking_is_refused_until_the_oldest_request_is_a_day_old(game, alice, sent, ask):
    ask(alice, game)
    other = store_game(sample_log("face-to-face"), [seat.version for seat in game.seats.order_by("seat")], index=1)
    ask(alice, other)
    third = store_game(sample_log("face-to-face"), [seat.version for seat in game.seats.order_by("seat")], index=2)
    with pytest.raises(requests.LimitReached, match="20|2 analyses in 24 hours") as refused:
        ask(alice, third)
    oldest = GameAnalysis.objects.filter(requested_by=alice).order_by("created").first()
    assert refused.value.retry_at == oldest.created + quotas.WINDOW
    assert GameAnalysis.objects.count() == 2 and len(sent) == 2


def test_a_failed_analysis_is_asked_for_again_as_a_new_request(game, alice, sent, ask):
    analysis, _ = ask(alice, game)
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="failed", error="worker broke")
    again, queued = ask(alice, game)
    assert queued and again.pk == analysis.pk and again.status == "queued" and again.error == ""
    assert len(sent) == 2


def test_an_opted_in_owner_gets_the_lost_rated_games_analysed(
    game, alice, bob, sent, django_capture_on_commit_callbacks
):
    seats = {seat.seat: seat for seat in GameSeat.objects.filter(game=game).select_related("version__bot")}
    loser = seats[1 - game.winner_seat]
    GameSeat.objects.filter(pk=loser.pk).update(points=0.0)
    GameSeat.objects.filter(pk=seats[game.winner_seat].pk).update(points=1.0)
    match = game.match
    events.send_match_stored(match, match.ordered_versions(), [game], None)
    assert not GameAnalysis.objects.exists(), "nobody opted in"
    winner_bot = seats[game.winner_seat].version.bot
    winner_bot.analyse_losses = True
    winner_bot.save()
    events.send_match_stored(match, match.ordered_versions(), [game], None)
    assert not GameAnalysis.objects.exists(), "the opted-in bot won"
    loser_bot = loser.version.bot
    loser_bot.analyse_losses = True
    loser_bot.save()
    match.rated = False
    assert automatic.analyse_losses(match, [game], match.ordered_versions()) == 0, "unrated games are left alone"
    match.rated = True
    with django_capture_on_commit_callbacks(execute=True):
        events.send_match_stored(match, match.ordered_versions(), [game], None)
    analysis = GameAnalysis.objects.get(game=game)
    assert analysis.automatic and analysis.requested_by == loser_bot.owner
    assert [call for call in sent if call[0] == "analyse_game"] == [("analyse_game", (analysis.pk,))]


def test_a_match_of_bots_that_had_not_opted_in_when_it_was_claimed_asks_nothing(
    game, alice, bob, sent, django_assert_num_queries
):
    seats = {seat.seat: seat for seat in GameSeat.objects.filter(game=game).select_related("version__bot")}
    GameSeat.objects.filter(pk=seats[1 - game.winner_seat].pk).update(points=0.0)
    match = game.match
    claimed = match.ordered_versions()  # as the worker loaded them with the match
    loser_bot = seats[1 - game.winner_seat].version.bot
    loser_bot.analyse_losses = True
    loser_bot.save()  # opted in while the match was played: from the next match on
    with django_assert_num_queries(0):
        assert automatic.analyse_losses(match, [game], claimed) == 0
    assert automatic.analyse_losses(match, [game], match.ordered_versions()) == 1


def test_a_bots_page_lists_its_costliest_marked_turns(game, alice, sent, ask):
    analysis, _ = ask(alice, game)
    marked = [
        {"turn": 3, "seat": 0, "mark": "mistake", "loss": 0.12},
        {"turn": 8, "seat": 1, "mark": "blunder", "loss": 0.31},
        {"turn": 9, "seat": 0, "mark": "blunder", "loss": 0.22},
    ]
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="done", marked=marked)
    bot = game.seats.get(seat=0).version.bot
    worst = blunders.worst(bot)
    assert [(item["turn"], item["mark"], item["points"]) for item in worst] == [
        (9, "blunder", 22.0),
        (3, "mistake", 12.0),
    ]
    assert worst[0]["url"] == f"/games/{game.pk}/#turn=9"


def test_a_blunder_marked_by_cards_says_so_and_ranks_by_its_cost_in_points(game, alice, sent, ask):
    analysis, _ = ask(alice, game)
    marked = [
        {"turn": 3, "seat": 0, "mark": "blunder", "loss": 0.16, "cards_loss": 0.4},
        {"turn": 7, "seat": 0, "mark": "blunder", "loss": 0.02, "cards_loss": 6.0},  # a lost game: cards thrown away
    ]
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="done", marked=marked)
    worst = blunders.worst(game.seats.get(seat=0).version.bot)
    assert [(item["turn"], item["by_cards"], item["cards"], item["cost"]) for item in worst] == [
        (7, True, 6.0, 20.0),  # 6 cards at 10 points per 3 cards (the mistake thresholds' rate)
        (3, False, 0.4, 16.0),
    ]


def test_an_analysis_by_an_older_engine_is_made_again_and_lists_no_blunders(game, alice, sent, ask, monkeypatch):
    analysis, _ = ask(alice, game)
    marked = [{"turn": 3, "seat": 0, "mark": "blunder", "loss": 0.2}]
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="done", marked=marked)
    bot = game.seats.get(seat=0).version.bot
    assert requests.current(game) == analysis and blunders.worst(bot)
    monkeypatch.setattr(requests, "engine_version", lambda: "99.newer-models")
    assert requests.current(game) is None, "an older engine's analysis is not today's"
    assert blunders.worst(bot) == []
    again, queued = ask(alice, game)
    assert queued and again.pk != analysis.pk and again.engine == "99.newer-models"


def test_a_log_that_no_longer_replays_fails_the_analysis_with_the_reason(game, alice, sent, ask):
    analysis, _ = ask(alice, game)
    log = game.verified_log()
    log["turns"][3]["plays"] = log["turns"][4]["plays"]
    type(game).objects.filter(pk=game.pk).update(log_zlib=type(game).compress_log(log))
    assert runs.run(analysis.pk)
    analysis.refresh_from_db()
    assert analysis.status == "failed" and "does not replay" in analysis.error and analysis.result is None
    (notice,) = Notification.objects.filter(recipient=alice, kind="analysis-finished")
    assert f"game {game.pk}" in notice.text and "failed: " in notice.text and "does not replay" in notice.text


def test_the_asker_is_told_of_each_ending_and_may_turn_it_off(game, alice, sent, ask):
    from league.arena.notifications import preferences

    analysis, _ = ask(alice, game)
    GameAnalysis.objects.filter(pk=analysis.pk).update(status="failed", error="worker broke")
    ask(alice, game)  # asked again: the same row, a new request
    assert runs.run(analysis.pk)
    assert Notification.objects.filter(recipient=alice, kind="analysis-finished").count() == 1
    preferences.save(alice.pk, {Notification.Kind.ANALYSIS_FINISHED: "off"})
    other = store_game(sample_log("face-to-face"), [seat.version for seat in game.seats.order_by("seat")], index=1)
    second, _ = ask(alice, other)
    assert runs.run(second.pk)
    assert Notification.objects.filter(recipient=alice).count() == 1, "alice turned these off"


def test_marks_are_told_in_words():
    assert runs._marks_told([]) == "no mistake or blunder marked"
    marked = [{"mark": "blunder"}, {"mark": "mistake"}, {"mark": "mistake"}]
    assert runs._marks_told(marked) == "1 blunder, 2 mistakes"


def test_the_upkeep_resends_lost_analyses_a_lease_apart(
    game, alice, sent, ask, monkeypatch, settings, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from league.arena import queue

    monkeypatch.setattr(queue, "waiting", lambda name: 0)

    def resend_lost():
        with django_capture_on_commit_callbacks(execute=True):
            return runs.resend_lost()

    analysis, _ = ask(alice, game)
    assert resend_lost() == 0, "just asked for: its message is on its way"
    old = timezone.now() - timedelta(seconds=settings.ARENA_ANALYSIS_LEASE_SECONDS + 1)
    GameAnalysis.objects.filter(pk=analysis.pk).update(created=old)
    with monkeypatch.context() as busy:
        busy.setattr(queue, "waiting", lambda name: 3)
        assert resend_lost() == 0, "messages still wait in the queue: none is lost"
    assert resend_lost() == 1 and resend_lost() == 0
    token = analysis.claim(timedelta(seconds=settings.ARENA_ANALYSIS_LEASE_SECONDS))
    assert token is not None
    GameAnalysis.objects.filter(pk=analysis.pk).update(heartbeat_at=old)  # its worker died
    assert resend_lost() == 1
    analysis.refresh_from_db()
    assert (analysis.status, analysis.claim_token) == ("queued", None)
    assert not analysis.progress(token, 1, game.turns), "the dead worker's claim is gone"
    assert [name for name, _ in sent] == ["analyse_game"] * 3


def test_a_bots_blunders_are_cached_until_one_of_its_analyses_is_stored(
    game, alice, client, sent, ask, monkeypatch, django_capture_on_commit_callbacks
):
    bot = game.seats.get(seat=0).version.bot
    page = reverse("bot", args=[bot.pk])
    assert "Worst blunders" not in client.get(page).content.decode()
    with CaptureQueriesContext(connection) as run:
        client.get(page)
    assert not [q for q in run.captured_queries if "arena_gameanalysis" in q["sql"]], "cached until an analysis"
    turn = {"turn": 4, "seat": 0, "mark": "blunder", "loss": 0.25}
    found = SimpleNamespace(to_json=lambda: {"turns": [turn, {**turn, "turn": 5, "mark": "good", "loss": 0.0}]})
    monkeypatch.setattr(runs, "analyse_log", lambda *args, **kwargs: found)
    analysis, _ = ask(alice, game)
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.run(analysis.pk)
    shown = client.get(page).content.decode()
    assert f'Game {game.pk}, turn 4</a>: <span class="mark mark-blunder">blunder</span> 25.0 points' in shown
    monkeypatch.setattr(requests, "engine_version", lambda: "99.newer-models")
    assert "Worst blunders" not in client.get(page).content.decode(), "an older engine's blunders are not kept"
