"""Scrims: requests, their checks and quota, their release below the league's other work, and what they store."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

import bots.house
from league.arena import queue
from league.arena.models import Bot, Match, MatchRequest, PairResult, Rating, RatingFit
from league.arena.play import matches
from league.arena.scrims import requests as scrims
from league.arena.uploads import changes as bot_changes
from league.arena.uploads.house import house_version

GREEDY = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()


@pytest.fixture
def pair(alice, bob, make_version):
    """Alice's `ace` (a copy of the greedy house bot) and Bob's `bee`, both active."""
    return make_version(alice, "ace", source=GREEDY), make_version(bob, "bee")


def ask(user, mine, theirs, games=10):
    return scrims.request_scrim(user, mine.bot, theirs.bot, games)


def test_a_request_freezes_both_active_versions_and_asks_for_a_release(
    alice, pair, sent, django_capture_on_commit_callbacks
):
    ace, bee = pair
    with django_capture_on_commit_callbacks(execute=True):
        scrim = ask(alice, ace, bee, 25)
    assert (scrim.requester, scrim.version, scrim.opponent_version, scrim.games, scrim.released) == (
        alice,
        ace,
        bee,
        25,
        0,
    )
    assert ("release_scrims", ()) in sent
    assert not Match.objects.exists()  # nothing is played before a release


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("not-owner", "only alice can ask for scrims of alice/ace"),
        ("itself", "a bot cannot scrim against itself"),
        ("other-game", "bob/coop plays The Game, not The Game: Face to Face"),
        ("too-many", "ask for 1 to 100 games, not 101"),
        ("none", "ask for 1 to 100 games, not 0"),
        ("opponent-inactive", "bob/fresh has no active version"),
        ("mine-inactive", "alice/new has no active version yet"),
    ],
)
def test_a_refused_request_says_why_and_writes_nothing(alice, bob, pair, make_version, case, message):
    ace, bee = pair
    user, mine, theirs, games = alice, ace.bot, bee.bot, 10
    if case == "not-owner":
        user = bob
    elif case == "itself":
        theirs = ace.bot
    elif case == "other-game":
        theirs = make_version(bob, "coop", game="the-game").bot
    elif case in ("too-many", "none"):
        games = 101 if case == "too-many" else 0
    elif case == "opponent-inactive":
        theirs = make_version(bob, "fresh", status="validating").bot
    elif case == "mine-inactive":
        mine = make_version(alice, "new", status="failed").bot
    with pytest.raises(scrims.ScrimRefused, match=message):
        scrims.request_scrim(user, mine, theirs, games)
    assert not MatchRequest.objects.exists()


def test_scrims_are_for_the_competitive_game(alice, bob, make_version):
    solo = make_version(alice, "solo", game="the-game")
    other = make_version(bob, "other", game="the-game")
    with pytest.raises(scrims.ScrimRefused, match="scrims are for The Game: Face to Face"):
        ask(alice, solo, other)


def test_the_daily_quota_counts_the_last_24_hours(alice, bob, pair, settings):
    ace, bee = pair
    settings.ARENA_SCRIM_GAMES_PER_DAY = 30
    first = ask(alice, ace, bee, 20)
    ask(alice, ace, bee, 10)
    with pytest.raises(scrims.QuotaExceeded) as refused:
        ask(alice, ace, bee, 1)
    message = str(refused.value)
    assert "you may ask for 30 scrim games in 24 hours and have asked for 30; 0 left now" in message
    assert refused.value.retry_at == first.created + timedelta(hours=24)
    assert f"more from {refused.value.retry_at:%Y-%m-%d %H:%M} UTC" in message
    assert scrims.games_left(alice.pk) == 0
    assert MatchRequest.objects.count() == 2
    MatchRequest.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(hours=24, seconds=1))
    assert scrims.games_left(alice.pk) == 20
    ask(alice, ace, bee, 20)  # the oldest request left the window
    # Bob's quota is his own.
    assert scrims.games_left(bob.pk) == 30


def test_a_quota_of_zero_turns_scrims_off(alice, pair, settings):
    settings.ARENA_SCRIM_GAMES_PER_DAY = 0
    with pytest.raises(scrims.ScrimRefused, match="scrims are turned off on this server") as refused:
        ask(alice, *pair, 1)
    assert not isinstance(refused.value, scrims.QuotaExceeded)


def test_a_release_plays_the_request_in_unrated_chunks_on_the_scrim_queue(
    alice, pair, sent, django_capture_on_commit_callbacks
):
    ace, bee = pair
    scrim = ask(alice, ace, bee, 25)
    with django_capture_on_commit_callbacks(execute=True):
        (match,) = scrims.release()
    assert (match.kind, match.rated, match.games, match.match_request_id) == ("scrim", False, 10, scrim.pk)
    assert match.ordered_versions() == [ace, bee]
    assert sent[-1] == ("play_scrim", (match.pk,))
    scrim.refresh_from_db()
    assert scrim.released == 10
    assert scrims.release() == []  # one match of a request at a time


def test_the_scrim_task_is_routed_to_its_own_queue_which_workers_consume(settings):
    from league.celery import app

    route = app.amqp.router.route({}, queue.PLAY_SCRIM)
    assert route["queue"].name == settings.ARENA_SCRIM_QUEUE != settings.CELERY_TASK_DEFAULT_QUEUE
    assert app.amqp.router.route({}, queue.RELEASE_SCRIMS)["queue"].name == settings.ARENA_CONTROL_QUEUE
    assert settings.ARENA_SCRIM_QUEUE in {q.name for q in app.conf.task_queues}


@pytest.mark.parametrize("kind", ["ladder", "tournament", "validation"])
def test_scrims_wait_while_other_work_waits(alice, pair, kind):
    ace, bee = pair
    ask(alice, ace, bee, 10)
    waiting = Match.objects.create_with_entries([ace, bee], kind=kind, game="face-to-face", games=2, seed="w")
    assert scrims.release() == []
    Match.objects.filter(pk=waiting.pk).update(status="running")  # being played: nothing waits any more
    assert len(scrims.release()) == 1


def test_an_operator_may_let_scrims_in_beside_a_short_backlog(alice, pair, settings):
    ace, bee = pair
    ask(alice, ace, bee, 10)
    for seed in ("a", "b"):
        Match.objects.create_with_entries([ace, bee], kind="ladder", game="face-to-face", games=2, seed=seed)
    settings.ARENA_SCRIM_MAX_BACKLOG = 1
    assert scrims.release() == []
    settings.ARENA_SCRIM_MAX_BACKLOG = 2
    assert len(scrims.release()) == 1


def test_at_most_the_in_flight_limit_one_per_requester_oldest_first(alice, bob, pair, make_version, settings):
    ace, bee = pair
    settings.ARENA_SCRIM_IN_FLIGHT = 2
    carol = type(alice).objects.create_user("carol", password="x")
    cee = make_version(carol, "cee")
    first = ask(alice, ace, bee, 10)
    second = ask(alice, ace, bee, 10)  # Alice's second waits for her first
    bobs = ask(bob, bee, ace, 10)
    ask(carol, cee, ace, 10)  # the newest: no room left
    released = scrims.release()
    assert sorted(m.match_request_id for m in released) == sorted([first.pk, bobs.pk])
    assert scrims.release() == []
    Match.objects.filter(match_request=first).update(status="done")
    (next_one,) = scrims.release()  # the oldest waiting request of a requester with nothing in flight
    assert next_one.match_request == second
    Match.objects.filter(match_request=bobs).update(status="done")
    (carols,) = scrims.release()
    assert carols.match_request.requester == carol


def test_a_user_with_many_requests_holds_back_nobody_else(alice, bob, pair, settings):
    ace, bee = pair
    settings.ARENA_SCRIM_IN_FLIGHT = 2
    alices = [ask(alice, ace, bee, 1) for _ in range(8)]
    bobs = ask(bob, bee, ace, 1)
    assert sorted(m.match_request_id for m in scrims.release()) == [alices[0].pk, bobs.pk]


def test_scrims_stay_off_the_ladder_but_are_public_games(alice, pair, played_game, client):
    from django.db import transaction

    from league.arena.play import results

    ace, bee = pair
    ask(alice, ace, bee, 2)
    (match,) = scrims.release()
    with transaction.atomic():
        Match.objects.filter(pk=match.pk).update(status="done", games_done=2)
        results.save_games(match, [ace, bee], [played_game(0, 0), played_game(1, 1)], {}, timezone.now())
    assert not PairResult.objects.exists()  # nothing for a refit to fit
    results.rebuild()  # and a rebuild from the stored games agrees
    assert not PairResult.objects.exists()
    page = client.get(reverse("bot", args=[bee.bot_id])).content.decode()
    assert f"#{match.pk}</a> scrim" in page  # listed among the opponent's games, with their kind
    head_to_head = page.split('<h2 id="opponents">')[1].split("<h2")[0]
    assert "No rated games yet." in head_to_head and "alice/ace" not in head_to_head


def test_a_request_stops_when_a_bot_leaves_the_league(alice, pair):
    ace, bee = pair
    scrim = ask(alice, ace, bee, 10)
    Bot.objects.filter(pk=bee.bot_id).update(active_version=None)
    assert scrims.release() == []
    scrims.attach_progress([scrim := MatchRequest.objects.get(pk=scrim.pk)])
    assert scrim.progress.state == "failed"
    assert scrim.progress.reason == "bob/bee no longer has an active version or was disabled"


@pytest.mark.parametrize("leave", ["retire", "disable"])
def test_a_bot_off_the_ladder_is_no_scrim_opponent(alice, pair, leave):
    ace, bee = pair
    scrim = ask(alice, ace, bee, 10)
    if leave == "retire":
        bot_changes.retire(bee.bot)
    else:
        bot_changes.disable([bee.bot])
    assert bee.bot not in scrims.opponents(ace.bot)
    with pytest.raises(scrims.ScrimRefused, match="bob/bee"):
        ask(alice, ace, bee, 10)
    assert scrims.release() == []  # the waiting request stops: a disabled bot's code never runs again
    scrims.attach_progress([scrim := MatchRequest.objects.get(pk=scrim.pk)])
    assert scrim.progress.state == "failed" and "bob/bee" in scrim.progress.reason


def test_a_requests_games_are_played_stored_and_unrated(alice, pair, sent, django_capture_on_commit_callbacks):
    ace, _ = pair
    rnd = house_version("house:random")
    scrim = scrims.request_scrim(alice, ace.bot, rnd.bot, 12)
    scrims.attach_progress([scrim])
    assert (scrim.progress.state, scrim.result) == ("queued", "no games played yet")
    for _chunk in range(2):
        (match,) = scrims.release()
        with django_capture_on_commit_callbacks(execute=True):
            assert matches.play(match.pk, worker="test:1")
        scrims.attach_progress([scrim := MatchRequest.objects.select_related("bot__owner").get(pk=scrim.pk)])
        assert scrim.progress.state == ("running" if _chunk == 0 else "done")
    assert sent.count(("release_scrims", ())) == 2  # each finished chunk asks for the next at once
    assert not any(name == "refit_ratings" for name, _ in sent)
    assert scrim.progress.played == 12 and scrim.released == 12
    p = scrim.progress
    assert p.wins + p.losses + p.draws == 12
    assert [len(m.played_games.all()) for m in scrim.matches.order_by("pk")] == [10, 2]
    assert not PairResult.objects.exists() and not Rating.objects.exists() and not RatingFit.objects.exists()
    leader = "alice/ace" if p.wins > p.losses else "house/random"
    assert scrim.result.startswith(f"{leader} beat ") or scrim.result.startswith("alice/ace and house/random tied")
    rows = scrims.games_of(scrim)
    assert len(rows) == 12 and all(set(seated) == {"alice/ace", "house/random"} for _, seated, _ in rows)


def test_a_failed_match_fails_the_request_and_stops_it(alice, pair):
    ace, bee = pair
    scrim = ask(alice, ace, bee, 30)
    (match,) = scrims.release()
    Match.objects.filter(pk=match.pk).update(status="failed", error="attempt 3: the match runner failed: OSError()")
    assert scrims.release() == []
    scrims.attach_progress([scrim])
    assert scrim.progress.state == "failed"
    assert "could not play" in scrim.progress.reason and "OSError" not in scrim.progress.reason


def test_a_lost_scrim_goes_back_to_the_scrim_queue(db, sent, settings, django_capture_on_commit_callbacks):
    settings.ARENA_MATCH_LEASE_SECONDS = 60
    old = timezone.now() - timedelta(seconds=61)
    lost = Match.objects.create(kind="scrim", game="face-to-face", games=1, seed="s", queued_at=old, rated=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.requeue_lost() == 1
    assert sent == [("play_scrim", (lost.pk,))]


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "state", "words"),
    [
        (0, 0, 0, "queued", "no games played yet"),
        (6, 4, 0, "done", "alice/ace beat bob/bee 6–4"),
        (3, 6, 1, "done", "bob/bee beat alice/ace 6–3, 1 drawn"),
        (5, 5, 0, "done", "alice/ace and bob/bee tied 5–5"),
        (3, 1, 0, "running", "so far alice/ace leads bob/bee 3–1 after 4 of 10 games"),
        (1, 1, 0, "running", "so far alice/ace and bob/bee are level 1–1 after 2 of 10 games"),
    ],
)
def test_the_result_in_words_names_the_bots(alice, pair, wins, losses, draws, state, words):
    ace, bee = pair
    scrim = ask(alice, ace, bee, 10)
    progress = scrims.Progress(state, wins + losses + draws, wins, losses, draws, reason="")
    assert scrims.result_words(scrim, progress) == words


# --- The pages --------------------------------------------------------------------------------------------------


def test_the_owner_asks_from_the_bot_page_and_follows_the_request(client, alice, pair):
    ace, bee = pair
    client.force_login(alice)
    page = client.get(reverse("bot", args=[ace.bot_id])).content.decode()
    assert 'id="scrims"' in page and "bob/bee" in page and "100 left now" in page
    response = client.post(reverse("new-scrim", args=[ace.bot_id]), {"opponent": bee.bot_id, "games": 4})
    scrim = MatchRequest.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("scrim", args=[scrim.pk])
    page = client.get(response["Location"]).content.decode()
    assert "queued" in page and "no games played yet" in page and "alice/ace" in page and "bob/bee" in page
    listed = client.get(reverse("bot", args=[ace.bot_id])).content.decode()
    assert f"Scrim #{scrim.pk}" in listed and "96 left now" in listed


def test_the_bot_page_shows_the_quota_refusal(client, alice, pair, settings):
    ace, bee = pair
    settings.ARENA_SCRIM_GAMES_PER_DAY = 5
    client.force_login(alice)
    response = client.post(reverse("new-scrim", args=[ace.bot_id]), {"opponent": bee.bot_id, "games": 6})
    assert response.status_code == 400
    assert "you may ask for 5 scrim games in 24 hours and have asked for 0; 5 left now, so 6 is too many" in (
        response.content.decode()
    )
    assert not MatchRequest.objects.exists()


def test_only_the_owner_sees_the_form_and_asks(client, alice, bob, pair):
    ace, bee = pair
    client.force_login(bob)
    assert 'id="scrims"' not in client.get(reverse("bot", args=[ace.bot_id])).content.decode()
    response = client.post(reverse("new-scrim", args=[ace.bot_id]), {"opponent": bee.bot_id, "games": 4})
    assert response.status_code == 403 and not MatchRequest.objects.exists()
    client.logout()
    response = client.post(reverse("new-scrim", args=[ace.bot_id]), {"opponent": bee.bot_id, "games": 4})
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_request_page_is_private_to_its_owner_and_staff(client, alice, bob, pair, django_user_model):
    ace, bee = pair
    scrim = ask(alice, ace, bee, 4)
    url = reverse("scrim", args=[scrim.pk])
    assert client.get(url).status_code == 404
    client.force_login(bob)  # the opponent's owner: nothing private
    assert client.get(url).status_code == 404
    client.force_login(django_user_model.objects.create_user("staff", password="x", is_staff=True))
    assert client.get(url).status_code == 200
    client.force_login(alice)
    assert client.get(url).status_code == 200
    status = reverse("scrim-status", args=[scrim.pk])
    assert 'data-live="on"' in client.get(status).content.decode()  # queued: the page keeps asking
    client.force_login(bob)
    assert client.get(status).status_code == 404
    # Nor does the opponent's bot page mention the request.
    client.force_login(bob)
    assert f"Scrim #{scrim.pk}" not in client.get(reverse("bot", args=[bee.bot_id])).content.decode()
