"""The bot page shows each version's failure rate by kind over its games (validation left out), with example links."""

from __future__ import annotations

import re

from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

import games
from bots.match import GameResult
from league.arena.lib import caching
from league.arena.models import ForfeitCount, Match
from league.arena.play import results


def store(a, b, outcomes, kind="ladder"):
    played = [
        GameResult.from_log(index=i, deal=i, log={"seed": f"s{i}", "start_seat": 0, "turns": []}, outcome=o,
                            seat_bots=[0, 1])
        for i, o in enumerate(outcomes)
    ]  # fmt: skip
    with transaction.atomic():
        match = Match.objects.create_with_entries(
            [a, b], kind=kind, game="face-to-face", games=len(played), seed="s", rated=False, status="done"
        )
        results.save_games(match, [a, b], played, {}, timezone.now())
    return match


def forfeit(termination, seat=0):
    return games.Outcome(termination, winner=1 - seat, seat=seat, detail="x")


def test_failure_rates_by_kind_with_examples(client, alice, bob, make_version):
    mine = make_version(alice, "mine")
    rival = make_version(bob, "rival")
    fair = games.Outcome(games.Termination.STUCK, winner=1, seat=0)
    T = games.Termination
    match = store(
        mine, rival,
        [forfeit(T.ILLEGAL_TURN), forfeit(T.ILLEGAL_TURN), forfeit(T.TIMEOUT), forfeit(T.CRASH, seat=1)] + [fair] * 6,
    )  # fmt: skip
    store(mine, rival, [forfeit(T.CRASH)] * 3, kind="validation")  # not counted
    page = client.get(reverse("bot", args=[mine.bot_id])).content.decode()
    table = re.search(r'<table class="failures">.*?</table>', page, re.S).group(0)
    cells = re.findall(r'<td class="num">(.*?)</td>', table, re.S)
    assert cells[0] == "10"  # games: the 3 validation games left out
    illegal, timeout, crash, protocol, other = cells[1:6]
    assert "20.0 %" in illegal and "(2)" in illegal
    assert "10.0 %" in timeout and "(1)" in timeout
    assert ">0<" in crash and ">0<" in protocol and ">0<" in other  # the rival's crash is not its fault
    ids = list(match.played_games.order_by("index").values_list("pk", flat=True))
    assert f'href="/games/{ids[0]}/"' in illegal and f'href="/games/{ids[1]}/"' in illegal
    assert f'href="/games/{ids[2]}/"' in timeout


def kept_forfeits():
    return sorted(ForfeitCount.objects.values_list("version_id", "termination", "games", "newest_game", "oldest_game"))


def test_forfeits_are_counted_on_store_and_a_rebuild_from_the_games_agrees(client, alice, bob, make_version):
    mine, rival = make_version(alice, "mine"), make_version(bob, "rival")
    T = games.Termination
    fair = games.Outcome(games.Termination.STUCK, winner=1, seat=0)
    first = store(mine, rival, [forfeit(T.TIMEOUT), fair, forfeit(T.CRASH, seat=1), forfeit(T.TIMEOUT)])
    second = store(rival, mine, [forfeit(T.TIMEOUT, seat=1), forfeit(T.CRASH), fair], kind="tournament")
    store(mine, rival, [forfeit(T.PROTOCOL_ERROR)] * 2, kind="validation")  # never counted
    one = list(first.played_games.order_by("index").values_list("pk", flat=True))
    two = list(second.played_games.order_by("index").values_list("pk", flat=True))
    expected = sorted(
        [
            (mine.pk, "timeout", 3, two[0], one[0]),  # mine sat in seat 1 of the second match
            (rival.pk, "crash", 2, two[1], one[2]),
        ]
    )
    assert kept_forfeits() == expected
    ForfeitCount.objects.filter(version=mine).update(games=9)
    ForfeitCount.objects.filter(version=rival).delete()
    call_command("rebuild_results", "--no-refit", stdout=open("/dev/null", "w"))
    assert kept_forfeits() == expected


def test_the_page_reads_the_kept_counts_not_the_games(client, alice, bob, make_version):
    mine, rival = make_version(alice, "mine"), make_version(bob, "rival")
    fair = games.Outcome(games.Termination.STUCK, winner=1, seat=0)
    store(mine, rival, [forfeit(games.Termination.CRASH)] + [fair] * 3)

    def crash_cell():
        page = client.get(reverse("bot", args=[mine.bot_id])).content.decode()
        table = re.search(r'<table class="failures">.*?</table>', page, re.S).group(0)
        return re.findall(r'<td class="num">(.*?)</td>', table, re.S)[3]

    assert "25.0 %" in crash_cell() and "(1)" in crash_cell()
    ForfeitCount.objects.filter(version=mine).update(games=2)  # what the page shows is what the stores kept
    caching.bump(caching.leaderboard_scope("face-to-face"))  # as the next refit does
    assert "50.0 %" in crash_cell() and "(2)" in crash_cell()


def test_a_coop_versions_games_count_each_game_once_validation_left_out(client, alice, make_version, settings, sent):
    # Real challenge matches, one a team of two seating the same version: each game counts once.
    from pathlib import Path

    import bots.house
    from league.arena.coop import challenges
    from league.arena.models import GameSeat
    from tests.league.coop_helpers import play_queued

    settings.ARENA_COOP_MAX_PENDING = 100
    challenges.start_season("the-game", deals=6, chunk=3, team_sizes=[1, 2])
    mine = make_version(
        alice, "mine", game="the-game", source=(Path(bots.house.__file__).parent / "greedy.py").read_bytes()
    )
    challenges.schedule("the-game")
    assert play_queued() > 0
    played = [
        GameResult.from_log(
            index=0, deal=0, log={"seed": "v:0", "start_seat": 0, "turns": []},
            outcome=games.Outcome(games.Termination.CRASH, seat=0, detail="x"), seat_bots=[0],
        )
    ]  # fmt: skip
    with transaction.atomic():
        validation = Match.objects.create_with_entries(
            [mine], kind="validation", game="the-game", games=1, players=1, seed="v", status="done"
        )
        results.save_games(validation, [mine], played, {}, timezone.now())
    counted = (
        GameSeat.objects.filter(version=mine)
        .exclude(game__match__kind="validation")
        .values("game_id")
        .distinct()
        .count()
    )
    assert counted == 12  # 6 deals alone and 6 as a team of two
    page = client.get(reverse("bot", args=[mine.bot_id])).content.decode()
    table = re.search(r'<table class="failures">.*?</table>', page, re.S).group(0)
    assert re.findall(r'<td class="num">(.*?)</td>', table, re.S)[0] == str(counted)
