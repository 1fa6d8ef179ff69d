"""Ratings are refit from the per-pair counts of every rated game; refits are coalesced, one per game at a time."""

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from league.arena.ladder import bradley_terry, refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import Rating, RatingFit, RatingPoint
from league.arena.play import results


def test_it_fits_every_rated_game(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 0, 0, 1])
    record_games(b, a, [1, 0])  # b is seat 0 here: a wins one, b wins one
    record_games(b, c, [0, 0, 1])
    record_games(a, c, [0, 1], rated=False)  # unrated (validation) games never count
    assert refits.refit(RatingPool.ladder("face-to-face")) is True
    expected = bradley_terry.fit_ratings(
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
    state = RatingFit.objects.get(game="face-to-face")
    assert (state.games, state.pending, state.claim_token) == (9, False, None)


def test_ratings_do_not_depend_on_how_or_in_which_order_matches_were_stored(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 1, 0])
    record_games(c, b, [None, 0])  # a draw
    refits.refit(RatingPool.ladder("face-to-face"))
    record_games(b, a, [1, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    incremental = {r.version_id: (r.elo, r.low, r.high, r.games, r.last_played) for r in Rating.objects.all()}
    # From scratch: aggregates rebuilt from the stored games, a fit from no ratings at all.
    results.rebuild()
    Rating.objects.all().delete()
    refits.refit(RatingPool.ladder("face-to-face"))
    scratch = {r.version_id: (r.elo, r.low, r.high, r.games, r.last_played) for r in Rating.objects.all()}
    assert scratch.keys() == incremental.keys()
    for pk, (elo, low, high, games, last_played) in scratch.items():
        assert (games, last_played) == incremental[pk][3:]
        assert (elo, low, high) == pytest.approx(incremental[pk][:3], abs=1e-9)  # the same optimum
    # Same games, other order and other matches: same numbers.
    fitted = refits.fit(refits.pair_counts(RatingPool.ladder("face-to-face"))[0])
    reordered = bradley_terry.fit_ratings(
        [(b.pk, a.pk, 0), (c.pk, b.pk, 1), (a.pk, b.pk, 1), (b.pk, c.pk, 0.5), (a.pk, b.pk, 0), (b.pk, a.pk, 0)]
        + [(a.pk, b.pk, 1)],
        prior_games=2.0,
    )
    for pk, rating in reordered.items():
        assert fitted[pk].elo == pytest.approx(rating.elo, abs=1e-9)


def test_a_refit_whose_claim_was_taken_over_stores_nothing(alice, bob, make_version, record_games, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 0])
    refits.request(RatingPool.ladder("face-to-face"))
    slow = refits.claim(RatingPool.ladder("face-to-face"))
    counts, _ = refits.pair_counts(RatingPool.ladder("face-to-face"))
    stale_fit = refits.whole_fit(counts)
    # The slow refit stops refreshing its claim; after the lease another refit takes over with newer games.
    RatingFit.objects.filter(game="face-to-face").update(claimed_at=timezone.now() - refits.LEASE - timedelta(1))
    record_games(a, b, [1, 1, 1, 1])
    assert refits.refit(RatingPool.ladder("face-to-face")) is True
    newest = Rating.objects.get(version=a).elo
    assert refits.store(RatingPool.ladder("face-to-face"), slow, counts, stale_fit) is False
    assert Rating.objects.get(version=a).elo == newest
    assert RatingFit.objects.get(game="face-to-face").games == 6


def test_a_refit_claim_of_a_dead_process_of_the_node_is_handed_back_at_once(
    alice, bob, make_version, record_games, sent, django_capture_on_commit_callbacks
):
    import subprocess
    import sys

    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0])
    refits.request(RatingPool.ladder("face-to-face"))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # the worker holding the claim was killed mid-refit
    assert refits.claim(RatingPool.ladder("face-to-face"), f"w1@host:{gone.pid}") is not None
    RatingFit.objects.filter(game="face-to-face").update(pending=False)  # as the refit does first
    sent.clear()
    assert refits.hand_back_dead_here("w2@host:1") == 0  # another node: only the lease tells
    with django_capture_on_commit_callbacks(execute=True):
        assert refits.hand_back_dead_here("w1@host:1") == 1
    state = RatingFit.objects.get(game="face-to-face")
    assert (state.claim_token, state.pending) == (None, True)
    assert sent == [("refit_ratings", ("face-to-face",))]
    assert refits.run(RatingPool.ladder("face-to-face"), "w1@host:1") == 1
    assert RatingFit.objects.get(game="face-to-face").games == 1


def test_a_request_while_a_refit_is_asked_for_reads_one_row_and_writes_nothing(alice, bob, make_version, sent):
    make_version(alice, "a"), make_version(bob, "b")
    refits.request(RatingPool.ladder("face-to-face"))
    sent.clear()
    with CaptureQueriesContext(connection) as queries:
        refits.request(RatingPool.ladder("face-to-face"))
    assert len(queries.captured_queries) == 1 and queries.captured_queries[0]["sql"].startswith("SELECT")
    assert sent == []


# Outside a test transaction: requests follow commits, so what they queue is sent at once.
@pytest.mark.django_db(transaction=True)
def test_a_request_queues_one_refit_and_none_while_one_runs(alice, bob, make_version, record_games, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    sent.clear()  # (the ladder scheduled as the bots joined it)
    record_games(a, b, [0])
    refits.request(RatingPool.ladder("face-to-face"))
    assert sent == [("refit_ratings", ("face-to-face",))]
    token = refits.claim(RatingPool.ladder("face-to-face"))
    assert token is not None and refits.claim(RatingPool.ladder("face-to-face")) is None  # one refit in flight
    refits.request(RatingPool.ladder("face-to-face"))
    refits.request(RatingPool.ladder("face-to-face"))
    assert len(sent) == 1  # a refit is asked for already: these ride on it
    assert sent.options[0]["countdown"] == refits.FIRST_WAIT  # matches stored meanwhile ride on it too
    # A claim whose holder died is taken over after the lease, the upkeep asking for the refit again.
    RatingFit.objects.filter(game="face-to-face").update(claimed_at=timezone.now() - refits.LEASE - timedelta(1))
    refits.request(RatingPool.ladder("face-to-face"))
    assert len(sent) == 1
    assert refits.resume_stale() == 1
    assert refits.claim(RatingPool.ladder("face-to-face")) not in (None, token)


# Outside a test transaction: requests follow commits, so what they queue is sent at once.
@pytest.mark.django_db(transaction=True)
def test_matches_stored_during_a_refit_are_covered_by_one_more_refit(
    alice, bob, make_version, record_games, sent, monkeypatch
):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0])
    fits: list[int] = []
    original = refits.locate

    def fit_while_matches_arrive(counts, start=None):
        fits.append(counts.total)
        if len(fits) == 1:  # three matches are stored while the first fit runs
            for winners in ([1], [1, 1], [0, 1]):
                record_games(a, b, winners)
                refits.request(RatingPool.ladder("face-to-face"))
        return original(counts, start)

    monkeypatch.setattr(refits, "locate", fit_while_matches_arrive)
    refits.request(RatingPool.ladder("face-to-face"))
    assert refits.run(RatingPool.ladder("face-to-face")) == 1
    # no refit was queued for each of them while the first ran, one was once it ended (a window later)
    # (each stored fit has the ladder scheduled)
    assert [name for name, _ in sent if name != "schedule_ladder"] == ["refit_ratings"] * 2
    follow_up = [options for (name, _), options in zip(sent, sent.options, strict=True) if name == "refit_ratings"][1]
    assert 0 <= follow_up["countdown"] < refits.WINDOW  # those matches waited out the fit: the rest of a window
    assert refits.run(RatingPool.ladder("face-to-face")) == 1
    assert fits == [1, 6]  # one more fit covered all three matches
    assert Rating.objects.get(version=a).games == 6
    state = RatingFit.objects.get(game="face-to-face")
    assert (state.games, state.pending, state.claim_token) == (6, False, None)
    assert refits.run(RatingPool.ladder("face-to-face")) == 0  # nothing asked for: a leftover task does nothing


def test_a_refit_asked_for_during_a_fit_starts_a_window_after_that_fit_began():
    for took in (0.05, 0.1, 0.2):  # quick fits: a window of three fits, so fits take a third of the time
        assert took + refits.next_countdown(took) == pytest.approx(refits.FITS_PER_WINDOW * took)
    for took in (0.4, 0.45, 0.75):  # slower ones: a window of WINDOW
        assert took + refits.next_countdown(took) == pytest.approx(refits.WINDOW)
    for took in (refits.WINDOW, 3 * refits.WINDOW):  # a fit longer than a window: the next starts at once
        assert refits.next_countdown(took) == 0.0


def test_the_leaderboard_hears_of_a_stored_refit_once_it_commits(
    alice, bob, make_version, record_games, django_capture_on_commit_callbacks
):
    from league.arena.lib.signals import leaderboard_changed

    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 0])
    heard = []
    leaderboard_changed.connect(lambda sender, game, **kw: heard.append(game), weak=False, dispatch_uid="test")
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            assert refits.refit(RatingPool.ladder("face-to-face"))
        assert heard == []  # not before the ratings are committed
        for callback in callbacks:
            callback()
        assert heard == ["face-to-face"]
    finally:
        leaderboard_changed.disconnect(dispatch_uid="test")


def test_a_refit_without_rated_games_stores_no_ratings(alice, bob, make_version, record_games):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 1], rated=False)
    assert refits.refit(RatingPool.ladder("face-to-face")) is True
    assert not Rating.objects.exists()
    assert RatingFit.objects.get(game="face-to-face").games == 0


def test_a_version_that_no_longer_plays_keeps_its_last_rating_and_still_counts_in_the_fit(
    alice, bob, make_version, record_games
):
    pool = RatingPool.ladder("face-to-face")
    old, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(old, b, [0, 0, 1])
    refits.refit(pool)
    frozen, points = Rating.objects.get(version=old), RatingPoint.objects.filter(version=old).count()
    new = make_version(alice, "a")  # a's second version supersedes the first: it leaves the ladder
    record_games(new, b, [1, 1, 1, 0])
    refits.refit(pool)
    kept = Rating.objects.get(version=old)
    assert (kept.elo, kept.low, kept.high, kept.games) == (frozen.elo, frozen.low, frozen.high, frozen.games)
    assert RatingPoint.objects.filter(version=old).count() == points  # its history stops where it stopped playing
    # Everyone still playing is rewritten from the whole fit, in which the old version is a free player.
    whole = refits.fit(refits.pair_counts(pool)[0])
    assert whole[old.pk].elo != pytest.approx(frozen.elo, abs=1e-6)  # the fit moved it; its row did not follow
    for version in (new, b):
        assert Rating.objects.get(version=version).elo == pytest.approx(whole[version.pk].elo, abs=1e-9)
    # Games of its own (a tournament it was entered in with that version) make it play again.
    record_games(old, b, [1])
    refits.refit(pool)
    assert Rating.objects.get(version=old).elo == pytest.approx(refits.fit(refits.pair_counts(pool)[0])[old.pk].elo)


def test_a_refit_starts_from_the_last_fit_this_process_stored_not_from_the_frozen_ratings(
    alice, bob, make_version, record_games, monkeypatch
):
    pool = RatingPool.ladder("face-to-face")
    refits.forget_last_fits()
    old, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(old, b, [0, 0, 1])
    refits.refit(pool)
    new = make_version(alice, "a")  # supersedes `old`, whose stored rating stays where it was
    record_games(new, b, [1, 1, 1, 0])
    refits.refit(pool)
    fitted = refits.fit(refits.pair_counts(pool)[0])
    starts = []
    locate = refits.locate
    monkeypatch.setattr(refits, "locate", lambda counts, start: starts.append(start) or locate(counts, start))
    record_games(new, b, [0])
    refits.refit(pool)
    refits.forget_last_fits()
    refits.refit(pool)
    frozen = Rating.objects.get(version=old).elo
    assert starts[0][old.pk] == pytest.approx(fitted[old.pk].elo, abs=1e-9) != pytest.approx(frozen, abs=1e-6)
    assert starts[1][old.pk] == frozen  # a process with no fit of its own starts from the stored ratings
    for version in (new, b):  # where the fit starts changes nothing of what it stores
        assert Rating.objects.get(version=version).elo == pytest.approx(
            refits.fit(refits.pair_counts(pool)[0])[version.pk].elo, abs=1e-9
        )


@pytest.mark.django_db(transaction=True)
def test_when_the_broker_started_empty_a_refit_on_its_way_is_sent_again(alice, bob, make_version, record_games, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0])
    refits.request(RatingPool.ladder("face-to-face"))  # sent with a countdown, held by a worker meanwhile
    sent.clear()
    assert refits.resume_stale() == 0  # on its way
    assert refits.resume_stale(broker_lost=True) == 1  # the worker holding it dropped it with the broker
    assert sent == [("refit_ratings", ("face-to-face",))]
    assert 0 < sent.options[0]["countdown"] <= refits.FIRST_WAIT  # still due when it was
    token = refits.claim(RatingPool.ladder("face-to-face"))
    sent.clear()
    assert refits.resume_stale(broker_lost=True) == 0 and sent == []  # a live claim covers it
    assert token is not None


def test_a_refit_whose_intervals_are_slow_shows_its_elos_first(alice, bob, make_version, record_games, monkeypatch):
    pool = RatingPool.ladder("face-to-face")
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 0, 1])
    record_games(b, c, [0, 1, 1])
    refits.refit(pool)
    before = {r.version_id: r for r in Rating.objects.all()}
    points = RatingPoint.objects.count()
    newcomer = make_version(bob, "d")
    record_games(a, b, [0, 0, 0, 0])
    record_games(newcomer, c, [0, 1])
    monkeypatch.setattr(refits, "ELOS_FIRST_AFTER", 0.0)  # as if the intervals took long
    seen = {}
    with_intervals = bradley_terry.Strengths.with_intervals

    def look_while_the_intervals_are_computed(located, previous=None):
        if seen:  # the refit's own call is the first
            return with_intervals(located, previous)
        seen.update(rows={r.version_id: r for r in Rating.objects.all()}, points=RatingPoint.objects.count())
        seen.update(games=RatingFit.objects.get(game="face-to-face").games)
        return with_intervals(located, previous)

    monkeypatch.setattr(bradley_terry.Strengths, "with_intervals", look_while_the_intervals_are_computed)
    assert refits.refit(pool) is True
    whole = refits.fit(refits.pair_counts(pool)[0])
    shown = seen["rows"]
    assert set(shown) == {a.pk, b.pk, c.pk}  # a first rating waits for its interval
    for pk, row in shown.items():
        assert row.elo == pytest.approx(whole[pk].elo, abs=1e-9)
        assert (row.games, row.wins, row.losses) == (whole[pk].games, whole[pk].wins, whole[pk].losses)
        was = before[pk]
        # the interval moved with the Elo, as wide as it was: the new one is not known yet
        assert (row.low - row.elo, row.high - row.elo) == pytest.approx((was.low - was.elo, was.high - was.elo))
    assert shown[a.pk].games == before[a.pk].games + 4
    assert seen["points"] == points  # the history waits for the whole fit
    assert seen["games"] == 12  # the Elos cover every game
    stored = {r.version_id: r for r in Rating.objects.all()}
    assert set(stored) == {a.pk, b.pk, c.pk, newcomer.pk}
    for pk, rating in whole.items():
        assert (stored[pk].elo, stored[pk].low, stored[pk].high) == pytest.approx((rating.elo, rating.low, rating.high))
    assert RatingPoint.objects.count() > points


def test_a_refit_whose_intervals_are_quick_writes_its_ratings_once(alice, bob, make_version, record_games, monkeypatch):
    pool = RatingPool.ladder("face-to-face")
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 1, 1])
    refits.refit(pool)
    shown = []
    monkeypatch.setattr(refits, "store_elos", lambda *args: shown.append(args) or True)
    record_games(a, b, [0])
    refits.refit(pool)
    assert shown == []  # two players' intervals take far less than ELOS_FIRST_AFTER
    monkeypatch.setitem(refits._intervals_took, pool.key, refits.ELOS_FIRST_AFTER)
    record_games(a, b, [1])
    refits.refit(pool)
    assert len(shown) == 1  # the last refit's intervals took that long (as measured: this one's were quick)
    assert refits._intervals_took[pool.key] < refits.ELOS_FIRST_AFTER


def test_elos_shown_first_are_not_written_once_the_claim_is_lost(alice, bob, make_version, record_games):
    pool = RatingPool.ladder("face-to-face")
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 1, 1])
    refits.refit(pool)
    before = {r.version_id: (r.elo, r.low, r.games) for r in Rating.objects.all()}
    record_games(a, b, [0, 0])
    counts = refits.read_counts(pool)
    RatingFit.objects.filter(game=pool.key).update(pending=True)
    token = refits.claim(pool)
    RatingFit.objects.filter(game=pool.key).update(claim_token=None)  # presumed dead, taken over
    assert refits.store_elos(pool, token, counts, refits.locate(counts)) is False
    assert {r.version_id: (r.elo, r.low, r.games) for r in Rating.objects.all()} == before


def test_while_matches_stream_in_the_intervals_wait_a_few_seconds_and_the_elos_do_not(
    alice, bob, make_version, record_games, monkeypatch, sent
):
    pool = RatingPool.ladder("face-to-face")
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    record_games(a, b, [0, 1, 1])
    record_games(b, c, [0, 0, 1])
    monkeypatch.setattr(refits, "ELOS_FIRST_AFTER", 0.0)  # as if the intervals took long
    assert refits.refit(pool)  # no intervals stored yet: they are computed
    intervals = []
    with_intervals = bradley_terry.Strengths.with_intervals
    monkeypatch.setattr(
        bradley_terry.Strengths,
        "with_intervals",
        lambda located, previous=None: intervals.append(1) or with_intervals(located, previous),
    )
    locate = refits.locate

    def a_match_arrives_meanwhile(counts, start=None):
        record_games(a, c, [0])
        refits.request(pool)
        return locate(counts, start)

    monkeypatch.setattr(refits, "locate", a_match_arrives_meanwhile)
    record_games(a, b, [0, 0])
    points = RatingPoint.objects.count()
    assert refits.refit(pool)
    assert intervals == []  # left to the next refit, which the match asked for
    assert Rating.objects.get(version=a).games == 5 and RatingPoint.objects.count() == points  # its Elo is shown
    assert RatingFit.objects.get(game=pool.key).pending is True
    assert refits.run(pool) == 1
    assert intervals == []  # another match came during that refit, and the intervals stored are recent
    monkeypatch.setitem(refits._intervals_stored_at, pool.key, time.monotonic() - refits.INTERVALS_AT_MOST)
    assert refits.run(pool) == 1
    assert intervals == [1]  # they could wait no longer
    monkeypatch.setattr(refits, "locate", locate)
    assert refits.run(pool) == 1  # the last match's refit: nothing arrives during it
    assert intervals == [1, 1]
    whole = refits.fit(refits.pair_counts(pool)[0])
    for version in (a, b, c):
        row = Rating.objects.get(version=version)
        assert (row.elo, row.low, row.high, row.games) == pytest.approx(
            (whole[version.pk].elo, whole[version.pk].low, whole[version.pk].high, whole[version.pk].games)
        )


def test_a_refits_intervals_start_from_the_last_whole_fit_this_process_stored(
    alice, bob, make_version, record_games, monkeypatch
):
    pool = RatingPool.ladder("face-to-face")
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 1, 1])
    given, made = [], []
    with_intervals = bradley_terry.Strengths.with_intervals

    def note(located, previous=None):
        given.append(previous)
        made.append(with_intervals(located, previous))
        return made[-1]

    monkeypatch.setattr(bradley_terry.Strengths, "with_intervals", note)
    refits.refit(pool)
    record_games(a, b, [0])
    refits.refit(pool)
    refits.forget_last_fits()
    refits.refit(pool)
    assert given == [None, made[0], None]  # a process's first refit of the pool starts cold


@pytest.mark.django_db(transaction=True)
def test_matches_stored_during_a_fit_longer_than_the_window_get_the_next_fit_in_the_same_task(
    alice, bob, make_version, record_games, sent, monkeypatch
):
    pool = RatingPool.ladder("face-to-face")
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0])
    monkeypatch.setattr(refits, "WINDOW", 0.0)  # every fit is longer than the window
    fits = []
    locate = refits.locate

    def a_match_arrives_during_the_first_fit(counts, start=None):
        fits.append(counts.total)
        if len(fits) == 1:
            record_games(a, b, [1, 1])
            refits.request(pool)
        return locate(counts, start)

    monkeypatch.setattr(refits, "locate", a_match_arrives_during_the_first_fit)
    refits.request(pool)
    sent.clear()
    assert refits.run(pool) == 2 and fits == [1, 3]
    assert [name for name, _ in sent if name == "refit_ratings"] == []  # not through the broker
    assert RatingFit.objects.get(game=pool.key).claim_token is None
    monkeypatch.setattr(refits, "TASK_SECONDS", 0.0)  # a task that ran long hands the next fit over
    fits.clear()
    record_games(a, b, [0])
    refits.request(pool)
    sent.clear()
    assert refits.run(pool) == 1 and fits == [4]
    assert [options["countdown"] for (name, _), options in zip(sent, sent.options, strict=True)
            if name == "refit_ratings"] == [0.0]  # fmt: skip
