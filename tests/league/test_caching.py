"""Pages cache what changes only at a refit or a stored match, and show a change as soon as it is announced."""

import os
import subprocess
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.cache import caches
from django.http import Http404
from django.urls import reverse
from django.utils.html import strip_tags

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.lib import caching, signals
from league.arena.models import Rating, Tournament, TournamentEntry
from league.arena.play import matches
from league.arena.tournaments import starting as tournaments

ROOT = Path(__file__).resolve().parents[2]
LADDER = reverse("ladder", args=["face-to-face"])


@pytest.fixture
def rated(alice, bob, make_version):
    """Two rated Face to Face bots: alpha at 1600, beta at 1400."""
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    for version, elo in ((a, 1600), (b, 1400)):
        Rating.objects.create(version=version, game="face-to-face", elo=elo, low=elo - 40, high=elo + 40, games=4)
    return a, b


def rerate(version, elo):
    Rating.objects.filter(version=version).update(elo=elo, low=elo - 40, high=elo + 40)


def announce_leaderboard(capture, game="face-to-face"):
    """As a refit does: the signal goes out when the transaction commits."""
    with capture(execute=True):
        signals.send_leaderboard_changed(game)


def test_a_cached_leaderboard_page_makes_no_query(client, rated, django_assert_num_queries):
    first = client.get(LADDER).content
    with django_assert_num_queries(0):
        again = client.get(LADDER).content
    assert again == first and b"<table>" in again and b"1600 \xc2\xb1 40" in again


def test_the_leaderboard_shows_new_ratings_as_soon_as_they_are_announced(
    client, rated, django_capture_on_commit_callbacks
):
    alpha, _ = rated
    assert "1600 ± 40" in client.get(LADDER).content.decode()
    rerate(alpha, 1700)
    assert "1600 ± 40" in client.get(LADDER).content.decode()  # cached: nothing was announced
    announce_leaderboard(django_capture_on_commit_callbacks)
    page = client.get(LADDER).content.decode()
    assert "1700 ± 40" in page and "1600" not in page


def test_a_change_is_not_announced_before_its_transaction_commits(client, rated, django_capture_on_commit_callbacks):
    alpha, _ = rated
    client.get(LADDER)
    rerate(alpha, 1700)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        signals.send_leaderboard_changed("face-to-face")
    assert len(callbacks) == 1
    assert "1600 ± 40" in client.get(LADDER).content.decode()
    callbacks[0]()
    assert "1700 ± 40" in client.get(LADDER).content.decode()


def test_every_page_of_the_ladder_and_the_home_page_follow_the_announcement(
    client, alice, make_version, django_capture_on_commit_callbacks
):
    versions = [make_version(alice, f"bot-{k:02d}") for k in range(60)]
    for k, version in enumerate(versions):
        Rating.objects.create(version=version, game="face-to-face", elo=2000 - k, low=1900, high=2100, games=2)
    home = strip_tags(client.get(reverse("home")).content.decode())
    second = client.get(LADDER, {"page": 2}).content.decode()
    assert home.index("bot-00") < home.index("bot-01") and "bot-55" in second
    rerate(versions[55], 3000)
    rerate(versions[0], 1000)
    announce_leaderboard(django_capture_on_commit_callbacks)
    home = strip_tags(client.get(reverse("home")).content.decode())
    second = client.get(LADDER, {"page": 2}).content.decode()
    assert "alice/bot-55" in home and "bot-55" not in second and "bot-00" in second


def test_another_games_announcement_keeps_the_cache(
    client, rated, django_capture_on_commit_callbacks, django_assert_num_queries
):
    client.get(LADDER)
    announce_leaderboard(django_capture_on_commit_callbacks, game="extreme")
    with django_assert_num_queries(0):
        client.get(LADDER)


@pytest.fixture
def cup(rated, record_games):
    a, b = rated
    cup = Tournament.objects.create(name="Cup", status="running", games_per_pairing=4)
    for version in (a, b):
        TournamentEntry.objects.create(tournament=cup, bot=version.bot, version=version)
    match = record_games(a, b, [0, 0, 1], tournament=cup, kind="tournament")
    return cup, match


def test_the_tournament_standings_are_cached_until_a_match_is_announced(
    client, cup, rated, record_games, django_capture_on_commit_callbacks, django_assert_num_queries
):
    tournament, _ = cup
    live = reverse("tournament-live", args=[tournament.pk])
    assert "2/3" in client.get(live).content.decode()
    with django_assert_num_queries(2):  # the tournament and its progress; the standings come from the cache
        client.get(live)
    record_games(*rated, [0, 0, 0], tournament=tournament, kind="tournament")
    assert "2/3" in client.get(live).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        signals.send_tournament_changed(tournament.pk)
    fragment = client.get(live).content.decode()
    assert "5/6" in fragment and "1/6" in fragment
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "5/6" in page and "6 of 6 games played" in page


def test_progress_is_never_cached(client, cup):
    tournament, match = cup
    live = reverse("tournament-live", args=[tournament.pk])
    assert 'value="3"' in client.get(live).content.decode()
    match.games, match.status, match.games_done = 10, "running", 7
    match.save()
    assert 'value="7"' in client.get(live).content.decode()


def test_a_worker_processes_announcement_reaches_this_process(client, rated):
    """The signal is sent where the refit runs, a worker: the tokens live where every process sees them."""
    alpha, _ = rated
    client.get(LADDER)
    rerate(alpha, 1700)
    announce = (
        "import django; django.setup()\n"
        "from league.arena.lib.signals import leaderboard_changed\n"
        "leaderboard_changed.send(sender=None, game='face-to-face')\n"
    )
    # Only the announcement: with ladder scheduling on, a receiver would queue matches and read a database.
    environment = dict(os.environ, DJANGO_SETTINGS_MODULE="league.settings", ARENA_LADDER_MAX_PENDING="0")
    subprocess.run([sys.executable, "-c", announce], cwd=ROOT, env=environment, check=True, timeout=60)
    assert "1700 ± 40" in client.get(LADDER).content.decode()


def test_pages_render_while_the_cache_is_down(client, rated, settings, django_capture_on_commit_callbacks):
    down = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:9/0"}
    down["OPTIONS"] = {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}
    settings.CACHES = {"default": down, "generations": down}
    assert client.get(LADDER).status_code == 200
    alpha, _ = rated
    rerate(alpha, 1700)
    announce_leaderboard(django_capture_on_commit_callbacks)  # the receiver logs, never raises
    assert "1700 ± 40" in client.get(LADDER).content.decode()


def test_a_shared_redis_cache_serves_and_invalidates(
    client, rated, settings, django_capture_on_commit_callbacks, django_assert_num_queries
):
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("redis://"):
        pytest.skip("needs Redis (CELERY_BROKER_URL=redis://...)")
    redis = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    redis["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"  # nothing from an earlier run
    settings.CACHES = {"default": {**redis, "TIMEOUT": 60}, "generations": {**redis, "TIMEOUT": None}}
    client.get(LADDER)
    with django_assert_num_queries(0):
        client.get(LADDER)
    alpha, _ = rated
    rerate(alpha, 1700)
    announce_leaderboard(django_capture_on_commit_callbacks)
    assert "1700 ± 40" in client.get(LADDER).content.decode()
    caches["generations"].delete(caching.leaderboard_scope("face-to-face"))  # fragments expire by themselves


def test_two_bumps_never_meet_on_one_token(db):
    scope = caching.tournament_scope(1)
    seen = {caching.generation(scope)}
    for _ in range(5):
        caching.bump(scope)
        seen.add(caching.generation(scope))
    assert len(seen) == 6


def test_stored_games_and_their_refit_show_at_once(
    client, alice, bob, make_version, record_games, sent, django_capture_on_commit_callbacks
):
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    with django_capture_on_commit_callbacks(execute=True):
        record_games(a, b, [0, 0, 0, 1])
        refits.refit(RatingPool.ladder("face-to-face"))
    page = client.get(LADDER).content.decode()
    assert page.index("alpha") < page.index("beta") and "3–1" in page
    with django_capture_on_commit_callbacks(execute=True):
        record_games(a, b, [1] * 8)
        refits.refit(RatingPool.ladder("face-to-face"))
    page = client.get(LADDER).content.decode()
    assert page.index("beta") < page.index("alpha") and "9–3" in page
    home = strip_tags(client.get(reverse("home")).content.decode())
    assert home.index("bob/beta") < home.index("alice/alpha")


def test_a_bot_joining_the_ladder_shows_at_once(client, rated, make_version, bob, django_capture_on_commit_callbacks):
    assert "gamma" not in client.get(LADDER).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        make_version(bob, "gamma")
    assert "gamma" in client.get(LADDER).content.decode()
    assert "bob/gamma" in strip_tags(client.get(reverse("home")).content.decode())


def test_a_stored_tournament_match_shows_at_once(
    client, alice, bob, make_version, sent, played_game, django_capture_on_commit_callbacks
):
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    cup = Tournament.objects.create(name="Cup", games_per_pairing=1)
    for version in (a, b):
        TournamentEntry.objects.create(tournament=cup, bot=version.bot, version=version)
    live = reverse("tournament-live", args=[cup.pk])
    with django_capture_on_commit_callbacks(execute=True):
        (match,) = tournaments.start(cup.pk)
    assert "0/1" not in client.get(live).content.decode()
    token = match.claim("test", matches.lease())
    with django_capture_on_commit_callbacks(execute=True):
        matches.store(match, token, [a, b], SimpleNamespace(games=[played_game(0, 1)], stderr={}))
    fragment = client.get(live).content.decode()
    assert "0/1" in fragment and "1/1" in fragment
    assert fragment.index("bob/beta") < fragment.index("alice/alpha")


def test_a_render_that_raises_stores_nothing(db):
    calls = []

    def missing():
        calls.append(1)
        raise Http404("no such page")

    for _ in range(2):
        with pytest.raises(Http404):
            caching.fragment("ladder:face-to-face:9", caching.leaderboard_scope("face-to-face"), missing)
    assert len(calls) == 2
    assert caching.fragment("x", caching.leaderboard_scope("face-to-face"), lambda: "fresh") == "fresh"
    assert caching.fragment("x", caching.leaderboard_scope("face-to-face"), lambda: "later") == "fresh"
