"""Result aggregates are kept as games are stored, and a rebuild from the stored games reproduces them exactly."""

import threading
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.utils import timezone

from league.arena.models import Match, MatchEntry, PairResult, SeatResult, Tournament
from league.arena.play import matches, results


def aggregates() -> tuple[list, list, list]:
    entries = sorted(
        MatchEntry.objects.values_list("match_id", "version_id", "games", "wins", "losses", "draws", "points")
    )
    pairs = sorted(
        PairResult.objects.values_list(
            "game", "first_id", "second_id", "first_wins", "second_wins", "draws", "last_played"
        )
    )
    seats = sorted(SeatResult.objects.values_list("version_id", "seat", "games", "wins", "losses", "draws"))
    return entries, pairs, seats


def test_storing_games_keeps_entry_and_pair_counts(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    first = record_games(a, b, [0, 0, 1])
    record_games(b, a, [None, 0])  # a draw, then b (seat 0) wins
    record_games(a, c, [1], rated=False)  # unrated: entries count it, pairs do not
    assert list(first.entries.order_by("index").values_list("games", "wins", "losses", "draws", "points")) == [
        (3, 2, 1, 0, 2.0),
        (3, 1, 2, 0, 1.0),
    ]
    (pair,) = PairResult.objects.all()
    assert (pair.first_id, pair.second_id) == (a.pk, b.pk)
    assert (pair.first_wins, pair.second_wins, pair.draws) == (2, 2, 1)
    assert pair.last_played is not None


def test_rebuild_reproduces_the_aggregates_exactly(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    cup = Tournament.objects.create(name="Cup", status="running")
    record_games(a, b, [0, 1, 0, None])
    record_games(c, a, [1, 1, 0])
    record_games(b, c, [0, 0], tournament=cup, kind="tournament")
    record_games(a, c, [0, 1], rated=False, kind="validation")
    record_games(c, b, [None, None, 1])
    kept = aggregates()
    assert len(kept[1]) == 3
    assert len(kept[2]) == 6  # three versions, two seats each; the validation games are not counted
    # Scramble: wrong counts, a missing pair, a made-up pair.
    MatchEntry.objects.update(wins=7, points=0.5)
    PairResult.objects.filter(first=a, second=b).delete()
    PairResult.objects.filter(first=b).update(draws=99, last_played=timezone.now())
    SeatResult.objects.filter(version=a, seat=0).update(wins=42)
    SeatResult.objects.filter(version=c, seat=1).delete()
    assert aggregates() != kept
    call_command("rebuild_results", "--no-refit", stdout=open("/dev/null", "w"))
    assert aggregates() == kept
    PairResult.objects.all().delete()
    MatchEntry.objects.update(games=0, wins=0, losses=0, draws=0, points=0.0)
    results.rebuild()
    assert aggregates() == kept


@pytest.mark.django_db(transaction=True)
def test_save_games_refuses_to_run_outside_a_transaction(alice, bob, make_version, played_game):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    match = Match.objects.create_with_entries([a, b], kind="ladder", game="face-to-face", games=1, seed="s")
    with pytest.raises(RuntimeError, match="inside the transaction"):
        results.save_games(match, [a, b], [played_game(0, 0)], {}, timezone.now())


def test_a_match_takes_each_version_once(alice, bob, make_version):
    a = make_version(alice, "a")
    with pytest.raises(ValueError, match="a version may enter a match once"):
        Match.objects.create_with_entries([a, a], kind="exhibition", game="face-to-face", games=1, seed="s")
    with pytest.raises(ValueError, match="needs saved versions"):
        Match.objects.create_with_entries([], kind="exhibition", game="face-to-face", games=1, seed="s")
    assert not Match.objects.exists()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite runs one writer at a time: nothing to deadlock")
def test_concurrent_workers_storing_the_same_pairs_count_every_game(alice, bob, make_version, played_game, sent):
    versions = [make_version(alice if k % 2 else bob, f"v{k}") for k in range(6)]
    planned = []
    for k in range(24):  # every match touches pairs other matches touch, in both seat orders
        a, b = versions[k % 6], versions[(k * 5 + 1) % 6]
        if a.pk == b.pk:
            b = versions[(k + 3) % 6]
        planned.append((Match(kind="ladder", game="face-to-face", games=4, seed=f"m{k}", rated=True), [a, b]))
    created = Match.objects.bulk_create_with_entries(planned)
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def store_share(share: list[Match]) -> None:
        try:
            barrier.wait()
            for match in share:
                token = match.claim("test", matches.lease())
                result = SimpleNamespace(games=[played_game(i, i % 2) for i in range(4)], stderr={})
                matches.store(match, token, match.ordered_versions(), result)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=store_share, args=(created[k::4],)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    kept = aggregates()
    assert sum(p[3] + p[4] + p[5] for p in kept[1]) == 24 * 4
    results.rebuild()
    assert aggregates() == kept
