"""The bot page: rating and rank, rating history, recent games, head to head, seats, and the owner's validations."""

from __future__ import annotations

import re

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from league.arena.ladder import history, refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import Game, Rating, RatingFit, RatingPoint, SeatResult
from league.arena.profiles import bot_page as bot_pages


def page(client, bot, **params) -> str:
    response = client.get(reverse("bot", args=[bot.pk]), params)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# --- Rating history ---------------------------------------------------------------------------------------------


def test_a_refit_adds_a_point_only_for_versions_whose_rating_moved(alice, bob, make_version, record_games):
    a, b, c, d = (make_version(owner, name) for owner, name in ((alice, "a"), (bob, "b"), (alice, "c"), (bob, "d")))
    record_games(a, b, [0, 1, 0])
    record_games(c, d, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    assert RatingPoint.objects.count() == 4
    first = RatingFit.objects.get().fitted_at
    assert set(RatingPoint.objects.values_list("fitted_at", flat=True)) == {first}
    for point in RatingPoint.objects.all():
        rating = Rating.objects.get(version_id=point.version_id)
        assert (point.elo, point.low, point.high, point.games) == (rating.elo, rating.low, rating.high, rating.games)

    refits.refit(RatingPool.ladder("face-to-face"))  # nothing new: no point
    assert RatingPoint.objects.count() == 4

    record_games(a, b, [0, 0])  # only a and b played: c and d (another component) did not move
    refits.refit(RatingPool.ladder("face-to-face"))
    second = RatingFit.objects.get().fitted_at
    moved = RatingPoint.objects.filter(fitted_at=second).values_list("version_id", flat=True)
    assert sorted(moved) == sorted([a.pk, b.pk])


def test_a_small_drift_is_recorded_once_it_adds_up(alice, bob, make_version):
    version = make_version(alice, "a")

    def fitted(elo: float, games: int = 10) -> history.Points:
        return history.Points(*(np.array([value]) for value in (elo, elo - 50, elo + 50, games)))

    Rating.objects.create(
        version=version, game="face-to-face", elo=1500.3, low=1450.3, high=1550.3, games=10,
        point_elo=1500, point_low=1450, point_high=1550, point_games=10,
    )  # fmt: skip
    stored_games, last = history.stored("face-to-face").of(np.array([version.pk]))
    assert stored_games.tolist() == [10] and last.elo.tolist() == [1500.0]
    assert history.moved(last, fitted(1500.3)).tolist() == [False]  # the point stays where the drift started
    assert history.moved(last, fitted(1500.6)).tolist() == [True]
    assert history.moved(last, fitted(1500.0, games=11)).tolist() == [True]
    _, none = history.stored("face-to-face").of(np.array([version.pk + 1]))
    assert history.moved(none, fitted(1500.0)).tolist() == [True]  # a version's first fit is a point


def test_a_refit_that_lost_its_claim_adds_no_points(alice, bob, make_version, record_games, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 1, 0])
    refits.request(RatingPool.ladder("face-to-face"))
    token = refits.claim(RatingPool.ladder("face-to-face"))
    RatingFit.objects.update(claim_token=None)  # another refit took over
    counts, _ = refits.pair_counts(RatingPool.ladder("face-to-face"))
    assert refits.store(RatingPool.ladder("face-to-face"), token, counts, refits.whole_fit(counts, {})) is False
    assert not RatingPoint.objects.exists() and not Rating.objects.exists()


# --- Seats ------------------------------------------------------------------------------------------------------


def test_results_by_seat_are_kept_as_games_are_stored(alice, bob, make_version, record_games):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    record_games(a, b, [0, 0, 1, None])  # a in seat 0: won 2, lost 1, drew 1
    record_games(b, a, [0, 1])  # a in seat 1: lost 1, won 1
    record_games(a, b, [1, 1], kind="validation", rated=False)  # not counted
    record_games(a, b, [0], kind="exhibition", rated=False)  # counted: a competitive game
    rows = SeatResult.objects.filter(version=a).order_by("seat").values_list("seat", "games", "wins", "losses", "draws")
    assert list(rows) == [(0, 5, 3, 1, 1), (1, 2, 1, 1, 0)]
    text = page(client_for(None), a.bot)
    seats = re.search(r'<table class="seats">.*?</table>', text, re.S).group(0)
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", seats)).split("Win rate")[1].split() == (
        "Seat 0 5 3 1 1 60.0 % Seat 1 2 1 1 0 50.0 %".split()
    )


def client_for(user):
    from django.test import Client

    client = Client()
    if user is not None:
        client.force_login(user)
    return client


# --- The page ---------------------------------------------------------------------------------------------------


def lines_of(svg: str) -> dict[str, list[tuple[float, float]]]:
    """Each version's polyline in one layout of the chart: its points as (x, y)."""
    found = re.findall(r'<polyline class="line" data-version="(v\d+)"[^>]*points="([^"]+)"', svg)
    return {label: [tuple(map(float, xy.split(","))) for xy in points.split()] for label, points in found}


def test_the_page_shows_rating_interval_rank_and_a_chart_with_a_line_per_version(
    client, alice, bob, make_version, record_games
):
    others = [make_version(bob, f"o{k}") for k in range(3)]
    first = make_version(alice, "mine")
    for opponent in others:
        record_games(first, opponent, [0, 0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    second = make_version(alice, "mine")  # v2 becomes the active version
    for k, opponent in enumerate(others):
        record_games(second, opponent, [1, 1, 1, 0])
        if k:  # v1 plays on too (a tournament, say): its points interleave with v2's
            record_games(first, opponent, [1])
        refits.refit(RatingPool.ladder("face-to-face"))
    assert RatingPoint.objects.filter(version=first).count() == 3
    rating = Rating.objects.get(version=second)
    higher = Rating.objects.filter(elo__gt=rating.elo, version__active_for__isnull=False).count()
    text = page(client, first.bot)
    assert f"{rating.elo:.0f}</strong> Elo" in text
    assert f"95 % interval {rating.low:.0f}–{rating.high:.0f}" in text
    assert f"Rank <strong>{higher + 1}</strong>" in text and "with v2" in text
    svgs = {m.group(1): m.group(0) for m in re.finditer(r'<svg class="(wide|narrow)".*?</svg>', text, re.S)}
    assert set(svgs) == {"wide", "narrow"}
    refit_times = sorted(RatingPoint.objects.filter(version__bot=first.bot).values_list("fitted_at", flat=True))
    assert len(set(refit_times)) == 4
    for svg in svgs.values():
        lines = lines_of(svg)
        assert list(lines) == ["v1", "v2"]  # the newest drawn last, on top
        for version, label in ((first, "v1"), (second, "v2")):
            points = list(RatingPoint.objects.filter(version=version).order_by("fitted_at"))
            assert len(lines[label]) == len(points)
            xs = [x for x, _ in lines[label]]
            assert xs == sorted(xs) and len(set(xs)) == len(xs)  # one point per refit, left to right
            ys = [y for _, y in lines[label]]  # a higher Elo is higher up
            for k in range(1, len(points)):
                assert (points[k - 1].elo < points[k].elo) == (ys[k - 1] > ys[k]) or points[k - 1].elo == points[k].elo
        # v2 starts at the refit where it was first rated, right of v1's first point
        assert lines["v2"][0][0] > lines["v1"][0][0]
        assert svg.count('class="start"') == 2 and "version-mark" not in svg
        assert '<desc id="chart-desc-' in svg and "4 refits from" in svg
    legend = re.search(r'<ul class="chart-legend.*?</ul>', text, re.S).group(0)
    assert "v2 (active): Elo" in legend and "v1: Elo" in legend
    table = re.search(r"<details>.*?</details>", text, re.S).group(0)
    points = RatingPoint.objects.filter(version__bot=first.bot).count()
    assert table.count("<tr>") == 1 + points and f'<td>v2</td><td class="num">{rating.elo:.0f}</td>' in table


def test_the_chart_draws_the_newest_versions_and_names_the_rest(client, alice, bob, make_version, record_games):
    rival = make_version(bob, "rival")
    for _ in range(bot_pages.rating_chart.VERSIONS_DRAWN + 2):
        version = make_version(alice, "mine")
        record_games(version, rival, [0, 1, 0])
        refits.refit(RatingPool.ladder("face-to-face"))
    text = page(client, version.bot)
    wide = re.search(r'<svg class="wide".*?</svg>', text, re.S).group(0)
    assert list(lines_of(wide)) == ["v3", "v4", "v5", "v6", "v7"]
    assert "Older versions are not drawn (v1, v2)" in text


def test_the_history_table_prints_every_point_newest_first_in_the_sites_time_zone(
    client, alice, bob, make_version, record_games, settings
):
    settings.TIME_ZONE = "Asia/Kolkata"  # +05:30: a time printed unconverted would show
    mine, rival = make_version(alice, "mine"), make_version(bob, "rival")
    for winners in ([0, 0, 1], [1, 1], [0]):
        record_games(mine, rival, winners)
        refits.refit(RatingPool.ladder("face-to-face"))
    points = list(RatingPoint.objects.filter(version=mine).order_by("-fitted_at"))
    assert len(points) == 3
    table = re.search(r"<details>.*?</details>", page(client, mine.bot), re.S).group(0)
    expected = [
        f'<tr><td>{timezone.localtime(p.fitted_at):%Y-%m-%d %H:%M:%S}</td><td>v1</td><td class="num">{p.elo:.0f}</td>'
        f'<td class="num">{p.low:.0f}–{p.high:.0f}</td><td class="num">{p.games}</td></tr>'
        for p in points
    ]
    assert re.findall(r"<tr><td>.*?</tr>", table) == expected
    assert timezone.localtime(points[0].fitted_at).utcoffset().total_seconds() == 5.5 * 3600


def test_recent_games_are_paged_in_words_and_bounded(client, alice, bob, make_version, record_games, monkeypatch):
    monkeypatch.setattr(bot_pages, "GAMES_PER_PAGE", 3)
    mine, theirs = make_version(alice, "mine"), make_version(bob, "theirs")
    record_games(mine, theirs, [0, 1, None, 0, 0, 1, 0])
    newest = list(Game.objects.order_by("-pk").values_list("pk", flat=True))
    first = page(client, mine.bot)
    assert re.findall(r'href="/games/(\d+)/">Replay', first) == [str(pk) for pk in newest[:3]]
    assert "won: the opponent was stuck" in first and "lost: was stuck" in first
    table = re.search(r'<table class="games">.*?</table>', first, re.S).group(0)
    assert table.count(f'<a href="/users/bob/">bob</a>/<a href="/bots/{theirs.bot.pk}/">theirs</a>') == 3
    assert 'href="?games=2#games" rel="next"' in first
    third = page(client, mine.bot, games=3)
    assert re.findall(r'href="/games/(\d+)/">Replay', third) == [str(newest[6])]
    assert 'href="?games=2#games" rel="prev"' in third and "Older games ›</span>" in third
    assert "draw" in page(client, mine.bot, games=2)
    for bad in ("0", "x", str(bot_pages.GAME_PAGES + 1)):
        assert client.get(reverse("bot", args=[mine.bot.pk]), {"games": bad}).status_code == 404


def test_head_to_head_counts_every_opponent_and_links_to_their_games(
    client, alice, bob, make_version, record_games, monkeypatch
):
    monkeypatch.setattr(bot_pages, "OPPONENTS_PER_PAGE", 2)
    mine = make_version(alice, "mine")
    rivals = [make_version(bob, f"rival{k}") for k in range(3)]
    record_games(mine, rivals[0], [0, 0, 1, None, 0])  # 3 won, 1 lost, 1 drawn
    record_games(rivals[0], make_version(alice, "mine"), [0])  # v2, seat 1: lost
    record_games(mine, rivals[1], [1, 1])
    record_games(mine, rivals[2], [0])
    record_games(mine, rivals[2], [0], rated=False, kind="exhibition")  # unrated: not in the record
    text = page(client, mine.bot)
    block = re.search(r'<h2 id="opponents">.*?</table>', text, re.S).group(0)
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", block, re.S)]
    assert cells[:6] == ["bob/rival0", "3", "2", "1", "58 %", "6 games"]
    assert cells[7:13] == ["bob/rival1", "0", "2", "0", "0 %", "2 games"]
    assert "against 3 opponents" in block and 'href="?opponents=2#opponents" rel="next"' in text
    assert "bob/rival2" in strip_tags(page(client, mine.bot, opponents=2))
    assert client.get(reverse("bot", args=[mine.bot.pk]), {"opponents": 3}).status_code == 404

    assert f'href="?vs={rivals[0].bot.pk}#games"' in text
    versus = page(client, mine.bot, vs=rivals[2].bot.pk)
    shown = re.findall(r'href="/games/(\d+)/">Replay', versus)
    against = Game.objects.filter(seats__version=rivals[2]).order_by("-pk").values_list("pk", flat=True)
    assert shown == [str(pk) for pk in against] and len(shown) == 2
    assert "Games against bob/rival2" in versus and "Show games against everyone" in versus
    assert client.get(reverse("bot", args=[mine.bot.pk]), {"vs": "nobody"}).status_code == 404


def test_head_to_head_last_played_is_the_newest_game_against_each_opponent_over_all_versions(
    client, alice, bob, make_version, played_game
):
    from datetime import UTC, datetime

    from django.db import transaction

    from league.arena.models import Match
    from league.arena.play import results

    def store(a, b, when: datetime, rated: bool = True) -> None:
        with transaction.atomic():
            match = Match.objects.create_with_entries(
                [a, b], kind="ladder" if rated else "exhibition", game="face-to-face", games=1, seed="s",
                rated=rated, status="done", games_done=1,
            )  # fmt: skip
            results.save_games(match, [a, b], [played_game(0, 0)], {}, when)

    first = make_version(alice, "mine")
    second = make_version(alice, "mine")
    near, far = make_version(bob, "near"), make_version(bob, "far")
    store(second, near, datetime(2026, 3, 4, 5, 6, tzinfo=UTC))  # the newest, by v2
    store(near, first, datetime(2026, 1, 2, 3, 4, tzinfo=UTC))  # older, stored later, v1 in seat 1
    store(first, far, datetime(2026, 2, 1, 10, 30, tzinfo=UTC))
    store(first, far, datetime(2026, 5, 1, 0, 0, tzinfo=UTC), rated=False)  # unrated: not in the record
    store(near, far, datetime(2026, 6, 1, 0, 0, tzinfo=UTC))  # without us: not ours
    block = re.search(r'<h2 id="opponents">.*?</table>', page(client, first.bot), re.S).group(0)
    rows = {
        strip_tags(re.search(r'<td class="name">(.*?)</td>', row, re.S).group(1)): row
        for row in re.findall(r"<tr>(.*?)</tr>", block, re.S)[1:]
    }
    assert set(rows) == {"bob/near", "bob/far"}
    assert '<time datetime="2026-03-04T05:06:00+00:00">2026-03-04 05:06 UTC</time>' in rows["bob/near"]
    assert '<time datetime="2026-02-01T10:30:00+00:00">2026-02-01 10:30 UTC</time>' in rows["bob/far"]


def test_the_owner_name_links_to_the_profile(client, alice, make_version):
    version = make_version(alice, "mine")
    assert f'<a href="/users/alice/">alice</a>/<a href="/bots/{version.bot.pk}/">mine</a>' in page(client, version.bot)


def test_only_the_owner_and_staff_see_the_validation_games_and_the_failure(
    client, alice, bob, django_user_model, make_version, record_games
):
    from league.arena.models import Match
    from league.arena.play import results

    passed = make_version(alice, "mine")
    opponent = make_version(bob, "house-like")
    record_games(passed, opponent, [0, 1], kind="validation", rated=False)
    failed = make_version(alice, "mine", status="failed")
    failed.failure_reason = "game 2: crash: KeyError: 'no such pile'"
    failed.stderr_tail = "Traceback (most recent call last):\nKeyError: 'no such pile'"
    failed.save()
    from django.db import transaction

    import games
    from bots.match import GameResult

    with transaction.atomic():
        match = Match.objects.create_with_entries(
            [failed, opponent], kind="validation", game="face-to-face", games=2, seed="v", rated=False, status="done"
        )
        crash = games.Outcome(games.Termination.CRASH, winner=1, seat=0, detail="KeyError: 'no such pile'")
        played = [
            GameResult.from_log(index=0, deal=0, log={"seed": "a", "turns": []}, outcome=games.Outcome(
                games.Termination.STUCK, winner=0, seat=1), seat_bots=[0, 1]),
            GameResult.from_log(index=1, deal=1, log={"seed": "b", "turns": []}, outcome=crash, seat_bots=[0, 1]),
        ]  # fmt: skip
        results.save_games(match, [failed, opponent], played, {}, timezone.now())
    crashed = match.played_games.get(index=1)

    mine = page(client_for(alice), passed.bot)
    block = re.search(r'<div class="card failure".*?</div>', mine, re.S).group(0)
    assert f'<a href="/games/{crashed.pk}/">game 2 of 2</a> against bob/house-like' in block
    assert "it crashed (crash)" in block and "KeyError: &#x27;no such pile&#x27;" in block
    assert block.count("KeyError: &#x27;no such pile&#x27;") == 1  # the message is the traceback's last line: once
    assert "Traceback (most recent call last)" in block
    validation = re.search(r'<table class="validation">.*?</table>', mine, re.S).group(0)
    assert validation.count("Replay game") == 4 and validation.count("failed here") == 1
    staff = django_user_model.objects.create_user("staff", password="x", is_staff=True)
    assert "Traceback (most recent call last)" in page(client_for(staff), passed.bot)
    for visitor in (None, bob):
        other = page(client_for(visitor), passed.bot)
        assert "Traceback" not in other and "Validation games" not in other and "no such pile" not in other
    # The polled versions table carries the same block, so a failure shows without reloading.
    polled = client_for(alice).get(reverse("bot-versions", args=[passed.bot.pk])).content.decode()
    assert f'<a href="/games/{crashed.pk}/">game 2 of 2</a>' in polled


# --- Queries and caching ----------------------------------------------------------------------------------------


def build_history(n: int, tag: str, alice, bob, make_version, record_games):
    """A bot of alice's with n versions that each played n opponents, n refits, and n validation games."""
    opponents = [make_version(bob, f"{tag}-rival-{k:02d}") for k in range(n)]
    version = None
    for k in range(n):
        version = make_version(alice, f"{tag}-mine")
        record_games(version, opponents[k], [0, 1, None])
        record_games(version, opponents[(k + 1) % n], [0], kind="validation", rated=False)
        refits.refit(RatingPool.ladder("face-to-face"))
    return version.bot


@pytest.mark.parametrize("viewer", ["visitor", "owner"])
def test_the_bot_page_runs_as_many_queries_for_30_games_opponents_and_refits_as_for_3(
    alice, bob, make_version, record_games, viewer, monkeypatch
):
    from django.core.cache import caches

    monkeypatch.setattr(bot_pages, "GAMES_PER_PAGE", 2)  # so that a second page exists with 3 as with 30
    monkeypatch.setattr(bot_pages, "OPPONENTS_PER_PAGE", 2)

    few = build_history(3, "few", alice, bob, make_version, record_games)
    many = build_history(30, "many", alice, bob, make_version, record_games)
    assert RatingPoint.objects.filter(version__bot=many).values("fitted_at").distinct().count() == 30
    client = client_for(alice if viewer == "owner" else None)
    counts = []
    for bot in (few, many):
        for query in ({}, {"games": 2}, {"opponents": 2}, {"vs": bot.pk}):
            for cache in caches.all():
                cache.clear()
            with CaptureQueriesContext(connection) as run:
                assert client.get(reverse("bot", args=[bot.pk]), query).status_code == 200
            counts.append(len(run))
    assert counts[:4] == counts[4:], counts
    # Anonymous: bot, versions, seats (with each version's games), numbers, rating, rank, history, game ids, their
    # seats, pairs, opponents, the worst blunders of its analysed games, the version tests it may see, and the
    # versions' forfeits by kind;
    # the owner adds the session's 2, the validation games with their seats, and the scrims part: its requests,
    # the quota used, whether an opponent exists and the opponents (the requests' progress only when there are any),
    # the header's count of unread notifications, and the test form's versions and bases.
    assert counts[0] == (14 if viewer == "visitor" else 25), counts


def test_rating_and_head_to_head_are_cached_until_the_leaderboard_changes(
    client, alice, bob, make_version, record_games, django_capture_on_commit_callbacks
):
    mine, theirs = make_version(alice, "mine"), make_version(bob, "theirs")
    record_games(mine, theirs, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    page(client, mine.bot)
    with CaptureQueriesContext(connection) as warm:
        before = page(client, mine.bot)
    assert not any("arena_ratingpoint" in query["sql"] or "arena_pairresult" in query["sql"] for query in warm)
    record_games(mine, theirs, [0, 0, 0])
    with django_capture_on_commit_callbacks(execute=True):
        refits.refit(RatingPool.ladder("face-to-face"))
    after = page(client, mine.bot)
    assert ">6 games</a>" in after and ">3 games</a>" in before
    assert after.count('class="start"') == 2 and RatingPoint.objects.filter(version=mine).count() == 2


def test_a_single_refit_draws_its_interval_as_a_bar(client, alice, bob, make_version, record_games):
    mine, theirs = make_version(alice, "mine"), make_version(bob, "theirs")
    record_games(mine, theirs, [0, 1, 0])
    refits.refit(RatingPool.ladder("face-to-face"))
    svg = re.search(r'<svg class="wide".*?</svg>', page(client, mine.bot), re.S).group(0)
    band = re.search(r'<polygon class="band"[^>]*points="([^"]+)"', svg).group(1).split()
    xs = sorted({float(corner.split(",")[0]) for corner in band})
    assert len(band) == 4 and xs[1] - xs[0] == 8


def test_games_against_itself_are_those_between_its_versions(client, alice, bob, make_version, record_games):
    first = make_version(alice, "mine")
    record_games(first, make_version(bob, "other"), [0, 1])
    second = make_version(alice, "mine")
    between = record_games(second, first, [0])
    shown = re.findall(r'href="/games/(\d+)/">Replay', page(client, first.bot, vs=first.bot.pk))
    assert shown == [str(between.played_games.get().pk)]


def test_a_superseded_version_is_not_labelled_active_and_the_rank_reads_once_the(client, alice, bob, make_version):
    from league.arena.models import Rating

    first = make_version(alice, "mine")
    second = make_version(alice, "mine")  # v2 is the ladder version now
    Rating.objects.create(version=second, game="face-to-face", elo=1500, low=1400, high=1600, games=20)
    shown = page(client, second.bot)
    versions = re.search(r"<section id=\"versions\".*?</table>", shown, re.S).group(0)
    rows = {label: row for label, row in re.findall(r"<tr>\s*<td>(v\d)</td>(.*?)</tr>", versions, re.S)}
    assert '"badge superseded"' in rows[first.label] and ">superseded<" in rows[first.label]
    assert ">active<" not in rows[first.label]
    assert ">active<" in rows[second.label]
    assert "the The Game" not in shown and "ladder of The Game: Face to Face</a>" in shown
