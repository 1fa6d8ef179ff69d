"""Version tests in the league: starting one within the quotas, its batches released below the league's other work,
folded into the SPRT after each stored batch until a verdict, unrated, cancelled, and who sees it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bots.sprt import SPRT, Counts, Status
from league.arena.models import Bot, BotVersion, Match, Notification, PairResult, Rating, VersionTest
from league.arena.play import matches
from league.arena.uploads.house import house_version
from league.arena.versiontests import running
from league.arena.versiontests import views as test_views


@pytest.fixture
def house_pair(alice, settings):
    """Alice's `ace`, whose version plays as the greedy house bot in-process, and the house random bot."""
    settings.ARENA_TEST_BATCH_PAIRS = 2
    settings.ARENA_TEST_IN_FLIGHT = 2
    ace = Bot.objects.create(owner=alice, name="ace", game="face-to-face", house_ref="house:greedy")
    version = BotVersion.objects.create(bot=ace, number=1, sha256="a" * 64, kind="house", status="active")
    ace.refresh_active_version()
    return version, house_version("house:random")


@pytest.fixture
def two_versions(alice, make_version):
    """Alice's `cee` with two uploaded versions (v1, v2), neither played here."""
    first = make_version(alice, "cee")
    return make_version(alice, "cee"), first


def play_to_the_end(test: VersionTest, capture, rounds: int = 60) -> VersionTest:
    """Release and play the test's batches (in this process) until it ends; the test as stored."""
    for _ in range(rounds):
        with capture(execute=True):
            running.release()
        waiting = list(Match.objects.filter(version_test=test, status="queued").order_by("pk"))
        if not waiting:
            break
        for match in waiting:
            with capture(execute=True):
                matches.play(match.pk, worker="test-worker")
    test.refresh_from_db()
    return test


def test_a_test_runs_in_unrated_batches_to_its_verdict_and_tells_its_owner(
    alice, house_pair, sent, django_capture_on_commit_callbacks
):
    new, base = house_pair
    with django_capture_on_commit_callbacks(execute=True):
        test = running.start(alice, new, base, elo0=0, elo1=100, elo_model="logistic", max_games=200)
    assert ("release_tests", ()) in sent and not Match.objects.exists()
    test = play_to_the_end(test, django_capture_on_commit_callbacks)
    assert (test.status, test.verdict) == ("done", "H1")
    played = list(Match.objects.filter(version_test=test, status="done"))
    assert played and all((m.kind, m.rated, m.games, m.seed) == ("test", False, 4, test.seed) for m in played)
    assert sorted(m.first_deal for m in played) == list(range(0, 2 * len(played), 2))  # batches on fresh deals
    assert ("play_test", (played[0].pk,)) in sent
    # The stored counts are the folded batches', and the LLR is bots.sprt's for them.
    counts = Counts.of(test.counts)
    assert counts.pairs == 2 * test.batches and test.batches >= 1
    expected = Status.of(SPRT(0, 100, elo_model="logistic"), counts)
    assert test.llr == pytest.approx(expected.llr) and test.llr >= expected.test.upper
    assert [games for games, _ in test.history] == [4 * k for k in range(1, test.batches + 1)]
    # Unrated: nothing reaches a refit or the ratings; the games replay.
    assert not PairResult.objects.exists() and not Rating.objects.exists()
    played[0].played_games.first().verified_log()
    notice = Notification.objects.get(recipient=alice, kind="test-verdict")
    assert "is stronger than house/random v" in notice.text and notice.url == test.get_absolute_url()


def test_a_test_without_verdict_stops_at_its_cap(alice, house_pair, sent, django_capture_on_commit_callbacks):
    new, base = house_pair
    with django_capture_on_commit_callbacks(execute=True):
        test = running.start(alice, new, base, elo0=-5, elo1=0, elo_model="logistic", max_games=8)
    test = play_to_the_end(test, django_capture_on_commit_callbacks)
    assert (test.status, test.verdict, test.released, Counts.of(test.counts).games) == ("done", "", 4, 8)
    assert "no verdict at the game cap" in running.sentence(test)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("not-owner", "only alice can test versions of alice/cee"),
        ("itself", "cannot be tested against itself"),
        ("bounds", "elo0 must be below elo1"),
        ("cap", "the game cap is 2 to 20000 games, not 1"),
        ("other-game", "plays The Game, not The Game: Face to Face"),
        ("failed", "cannot play: it is not validated"),
    ],
)
def test_a_refused_test_says_why_and_writes_nothing(alice, bob, two_versions, make_version, case, message):
    new, base = two_versions
    user, kwargs = alice, {}
    if case == "not-owner":
        user = bob
    elif case == "itself":
        base = new
    elif case == "bounds":
        kwargs = {"elo0": 5, "elo1": 0}
    elif case == "cap":
        kwargs = {"max_games": 1}
    elif case == "other-game":
        base = make_version(bob, "coop", game="the-game")
    elif case == "failed":
        new = make_version(alice, "cee", status="failed")
    with pytest.raises(running.TestRefused, match=message):
        running.start(user, new, base, **kwargs)
    assert not VersionTest.objects.exists()


def test_quotas_tests_at_once_and_games_per_day(alice, bob, two_versions, make_version, settings):
    new, base = two_versions
    settings.ARENA_TESTS_AT_ONCE = 1
    first = running.start(alice, new, base)
    with pytest.raises(running.QuotaExceeded, match="you may run 1 test at once and have 1 running") as refused:
        running.start(alice, new, base)
    assert refused.value.retry_at > timezone.now()
    running.start(bob, make_version(bob, "bee"), new)  # Bob's quota is his own (against cee's active version)
    assert running.cancel(alice, first)
    settings.ARENA_TEST_GAMES_PER_DAY = 16
    released = running.release()  # Alice's cancelled test releases nothing; Bob's one batch of 16 games
    assert [(m.version_test.owner, m.games) for m in released] == [(bob, 16)]
    second = running.start(alice, new, base)
    Match.objects.create_with_entries(
        [new, base], kind="test", version_test=second, game="face-to-face", games=16, seed="s", status="done"
    )
    running.cancel(alice, second)
    with pytest.raises(running.QuotaExceeded, match="your tests may play 16 games in 24 hours and have played 16"):
        running.start(alice, new, base)
    Match.objects.filter(version_test=second).update(created=timezone.now() - timedelta(hours=25))
    running.start(alice, new, base)


def test_batches_wait_behind_the_ladder_and_cancel_withdraws_them(alice, bob, two_versions, settings):
    new, base = two_versions
    settings.ARENA_TEST_IN_FLIGHT = 3
    test = running.start(alice, new, base, public=True)
    waiting = Match.objects.create_with_entries([new, base], kind="ladder", game="face-to-face", games=2, seed="w")
    assert running.release() == []
    Match.objects.filter(pk=waiting.pk).update(status="running")
    released = running.release()
    assert [m.first_deal for m in released] == [0, 8, 16] and running.release() == []
    test.refresh_from_db()
    assert (test.status, test.released) == ("running", 24)
    with pytest.raises(running.TestRefused, match="only the test's owner can cancel it"):
        running.cancel(bob, test)
    assert running.cancel(alice, test) and not running.cancel(alice, test)
    assert set(Match.objects.filter(version_test=test).values_list("status", flat=True)) == {"cancelled"}
    assert running.release() == []


def test_who_sees_a_test_page(alice, bob, client, two_versions):
    new, base = two_versions
    private = running.start(alice, new, base)
    page = reverse("version-test", args=[private.pk])
    client.force_login(bob)
    assert client.get(page).status_code == 404
    assert client.post(reverse("version-test-cancel", args=[private.pk])).status_code == 404
    VersionTest.objects.filter(pk=private.pk).update(public=True)
    shown = client.get(page)
    assert shown.status_code == 200 and "V2 against v1: no games played yet" in shown.content.decode()
    assert b"Cancel" not in shown.content
    client.force_login(alice)
    mine = client.get(page).content.decode()
    assert "Cancel the test" in mine and 'data-live="on"' in mine and "<svg" in mine


def test_a_coop_test_compares_both_teams_on_the_same_deals(alice, sent, settings, django_capture_on_commit_callbacks):
    settings.ARENA_TEST_BATCH_PAIRS = 2
    mine = Bot.objects.create(owner=alice, name="solo", game="the-game", house_ref="house:greedy")
    new = BotVersion.objects.create(bot=mine, number=1, sha256="c" * 64, kind="house", status="active")
    mine.refresh_active_version()
    base = house_version("house:random", "the-game")
    with django_capture_on_commit_callbacks(execute=True):
        test = running.start(alice, new, base, players=1, max_games=8, elo0=-5, elo1=0, elo_model="logistic")
    test = play_to_the_end(test, django_capture_on_commit_callbacks)
    halves = list(Match.objects.filter(version_test=test).order_by("first_deal", "pk"))
    assert [(m.first_deal, m.ordered_versions(), m.players, m.games) for m in halves] == [
        (0, [new], 1, 2),
        (0, [base], 1, 2),
        (2, [new], 1, 2),
        (2, [base], 1, 2),
    ]
    # Deal by deal, the team that left fewer cards wins it: the counts are recomputed from the stored games.
    left = {m.pk: list(m.played_games.order_by("index").values_list("score", flat=True)) for m in halves}
    expected = [0, 0, 0]
    for mine_half, base_half in zip(halves[::2], halves[1::2], strict=True):
        for a, b in zip(left[mine_half.pk], left[base_half.pk], strict=True):
            expected[2 if a < b else 1 if a == b else 0] += 1
    assert (test.status, test.counts, test.batches) == ("done", expected, 2)
    assert running.status_of(test).counts.kind == "trinomial"


def test_the_bot_page_lists_the_tests_each_visitor_may_see(alice, bob, client, two_versions, monkeypatch):
    new, base = two_versions
    monkeypatch.setattr(test_views, "RECENT_SHOWN", 2)
    oldest = running.start(alice, new, base, public=True)
    running.cancel(alice, oldest)
    private = running.start(alice, new, base)
    newest = running.start(alice, new, base, public=True)

    def listed(user) -> list[int]:
        request = RequestFactory().get("/")
        request.user = user
        return [test.pk for test in test_views.bot_page_part(request, new.bot)["version_tests"]]

    assert listed(AnonymousUser()) == listed(bob) == [newest.pk, oldest.pk]
    assert listed(alice) == [newest.pk, private.pk]  # her own private test too, newest first, RECENT_SHOWN of them
    bob.is_staff = True
    assert listed(bob) == [newest.pk, private.pk]
    page = client.get(reverse("bot", args=[new.bot.pk])).content.decode()
    assert f"Test #{newest.pk}" in page and f"Test #{oldest.pk}" in page and f"Test #{private.pk}" not in page


def test_a_bot_without_tests_pays_one_small_query_for_them(two_versions):
    request = RequestFactory().get("/")
    request.user = AnonymousUser()  # its owner also gets the form, which reads the versions to offer
    with CaptureQueriesContext(connection) as run:
        assert test_views.bot_page_part(request, two_versions[0].bot)["version_tests"] == []
    assert len(run) == 1 and run[0]["sql"].count("JOIN") == 0, run.captured_queries
