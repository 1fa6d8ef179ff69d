"""`rebuild_results` recomputes the co-op challenge aggregates (deal results, standings, duplicate comparisons) from
the stored games, row for row as the stores kept them, and refits the co-op ladders."""

from __future__ import annotations

from datetime import timedelta

from django.core.management import call_command
from django.utils import timezone

from league.arena.coop import challenges
from league.arena.coop import rebuild as coop_rebuild
from league.arena.models import DealPair, DealResult, SeasonRating, SeasonStanding, Tournament
from tests.league.coop_helpers import record_coop


def coop_aggregates() -> tuple[list, list, list]:
    deals = sorted(
        DealResult.objects.values_list("season_id", "players", "version_id", "deal", "cards_left", "game_id")
    )
    standings = sorted(
        SeasonStanding.objects.values_list("season_id", "players", "version_id", "deals", "wins", "cards_left")
    )
    histograms = sorted(SeasonStanding.objects.values_list("season_id", "players", "version_id", "histogram"))
    pairs = sorted(
        DealPair.objects.values_list(
            "season_id", "players", "first_id", "second_id", "first_wins", "second_wins", "draws", "last_played"
        )
    )
    return deals, standings + histograms, pairs


def test_rebuild_reproduces_the_coop_aggregates_exactly(alice, bob, make_version):
    start = timezone.now() - timedelta(hours=1)
    old = challenges.start_season("the-game", deals=5, chunk=3, team_sizes=[1, 2])
    a, b = make_version(alice, "a", game="the-game"), make_version(bob, "b", game="the-game")
    record_coop(old, a, 1, [0, 4, 9], played_at=start)
    record_coop(old, b, 1, [2, 4, 0], played_at=start + timedelta(minutes=1))
    record_coop(old, a, 1, [7, 0], first_deal=3, played_at=start + timedelta(minutes=2))
    record_coop(old, b, 1, [1, 3], first_deal=3, played_at=start + timedelta(minutes=3))
    record_coop(old, a, 2, [0, 0, 1], played_at=start + timedelta(minutes=4))
    record_coop(old, b, 2, [0, 5, 1], played_at=start + timedelta(minutes=5))
    current = challenges.start_season("the-game", deals=4, chunk=4, team_sizes=[1])
    c = make_version(alice, "c", game="the-game")
    extreme = challenges.start_season("extreme", deals=3, chunk=3, team_sizes=[1])
    e = make_version(bob, "e", game="extreme")
    record_coop(current, a, 1, [3, 3, 3, 3], played_at=start + timedelta(minutes=6))
    record_coop(current, c, 1, [3, 1, 5, 3, 0, 0], played_at=start + timedelta(minutes=7))  # 2 games past the end
    record_coop(current, b, 1, [9, 9, 0, 3], played_at=start + timedelta(minutes=8))
    record_coop(extreme, e, 1, [20, 0, 11], played_at=start + timedelta(minutes=9))
    cup = Tournament.objects.create(name="Co-op cup", game="the-game", status="running")
    entrant = make_version(bob, "entrant", game="the-game")
    record_coop(current, entrant, 1, [0, 0, 0, 0], tournament=cup)  # on the season's deals, but no challenge result
    kept = coop_aggregates()
    assert len(kept[0]) == 2 * 5 + 2 * 3 + 3 * 4 + 3  # deals per season, version and team size
    assert len(kept[2]) == 2 + 3 + 0  # pairs: old solo a-b and pairs a-b; current a-c, a-b, b-c; extreme alone
    # Scramble: wrong counts, a lost result, a made-up comparison, a missing pair.
    DealResult.objects.filter(season=old, version=a, deal=2).delete()
    DealResult.objects.filter(season=current, version=c, deal=1).update(cards_left=50)
    SeasonStanding.objects.filter(version=b).update(wins=99, histogram=[1])
    DealPair.objects.filter(season=current).first().delete()
    DealPair.objects.filter(season=old).update(draws=7, last_played=timezone.now())
    assert coop_aggregates() != kept
    call_command("rebuild_results", stdout=open("/dev/null", "w"))
    assert coop_aggregates() == kept
    # The co-op ladders were refitted from the rebuilt comparisons: every compared version is rated.
    rated = set(SeasonRating.objects.values_list("season_id", "players", "version_id"))
    assert rated >= {(current.pk, 1, version.pk) for version in (a, b, c)} | {(old.pk, 2, a.pk), (old.pk, 2, b.pk)}
    DealResult.objects.all().delete()
    SeasonStanding.objects.all().delete()
    DealPair.objects.all().delete()
    rebuilt = coop_rebuild.rebuild()
    assert coop_aggregates() == kept
    assert rebuilt == (len(kept[0]), len(kept[1]) // 2, len(kept[2]))
