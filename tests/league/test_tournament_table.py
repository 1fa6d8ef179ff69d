"""Standings and crosstable are computed from the stored games."""

from league.arena.models import Tournament, TournamentEntry
from league.arena.tournaments import standings
from league.arena.tournaments import starting as tournaments


def test_it_ranks_by_points_and_fills_the_crosstable(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    t = Tournament.objects.create(name="Cup", status="running")
    for v in (a, b, c):
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    record_games(a, b, [0, 0, 1], tournament=t, kind="tournament")  # a 2, b 1
    record_games(b, c, [0, 0, 0], tournament=t, kind="tournament")  # b 3, c 0
    record_games(a, c, [1, 0], tournament=t, kind="tournament")  # a 1, c 1
    record_games(a, b, [1] * 5)  # ladder games do not count
    table = standings.table(t)
    assert [(s.version, s.points, s.games, s.wins, s.losses) for s in table.standings] == [
        (b, 4.0, 6, 4, 2),
        (a, 3.0, 5, 3, 2),
        (c, 1.0, 5, 1, 4),
    ]
    assert [cells for _, cells in table.crosstable] == [
        [None, "1/3", "3/3"],
        ["2/3", None, "1/2"],
        ["0/3", "1/2", None],
    ]


def test_the_table_takes_the_same_few_queries_however_many_games(
    alice, bob, make_version, record_games, django_assert_max_num_queries
):
    versions = [make_version(alice if k % 2 else bob, f"v{k}") for k in range(5)]
    t = Tournament.objects.create(name="Cup", status="running")
    for v in versions:
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    for k, a in enumerate(versions):
        for b in versions[k + 1 :]:
            record_games(a, b, [0, 1, 0] * 4, tournament=t, kind="tournament")
    with django_assert_max_num_queries(2):
        table = standings.table(t)
    assert all(s.games == 4 * 12 for s in table.standings)
    assert sum(s.points for s in table.standings) == 10 * 12


def test_a_stored_tournament_match_tells_the_standings(
    alice, bob, make_version, sent, django_capture_on_commit_callbacks, played_game
):
    from types import SimpleNamespace

    from league.arena.lib.signals import tournament_changed
    from league.arena.play import matches

    a, b = make_version(alice, "a"), make_version(bob, "b")
    t = Tournament.objects.create(name="Cup")
    for v in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    heard = []
    tournament_changed.connect(
        lambda sender, tournament_id, **kw: heard.append(tournament_id), weak=False, dispatch_uid="t"
    )
    try:
        with django_capture_on_commit_callbacks(execute=True):
            (match,) = tournaments.start(t.pk)
        assert heard == [t.pk]  # started
        token = match.claim("test", matches.lease())
        with django_capture_on_commit_callbacks(execute=True):
            matches.store(match, token, [a, b], SimpleNamespace(games=[played_game(0, 1)], stderr={}))
        assert heard == [t.pk, t.pk]  # a match stored
        assert ("finish_tournament", (t.pk,)) in sent
        with django_capture_on_commit_callbacks(execute=True):
            assert tournaments.finish_if_done(t.pk)
        assert heard == [t.pk, t.pk, t.pk]  # finished
    finally:
        tournament_changed.disconnect(dispatch_uid="t")
    assert [(s.version, s.points) for s in standings.table(t).standings] == [(b, 1.0), (a, 0.0)]


def test_only_the_last_open_match_asks_for_the_tournament_to_finish(
    alice, bob, make_version, sent, django_capture_on_commit_callbacks, played_game
):
    from types import SimpleNamespace

    from league.arena.play import matches

    a, b = make_version(alice, "a"), make_version(bob, "b")
    t = Tournament.objects.create(name="Cup", format="double-round-robin")
    for v in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    first, last = tournaments.start(t.pk)
    for match, expected in ((first, []), (last, [("finish_tournament", (t.pk,))])):
        sent.clear()
        token = match.claim("test", matches.lease())
        versions = match.ordered_versions()
        with django_capture_on_commit_callbacks(execute=True):
            matches.store(match, token, versions, SimpleNamespace(games=[played_game(0, 1)], stderr={}))
        assert [task for task in sent if task[0] == "finish_tournament"] == expected


def test_the_table_sums_each_pairs_results_over_its_two_entry_matches_alone(alice, bob, make_version, record_games):
    import random

    from league.arena.models import Match, MatchEntry

    versions = [make_version(alice if k % 2 else bob, f"v{k}") for k in range(6)]
    t = Tournament.objects.create(name="Cup", status="running")
    for v in versions:
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    rng = random.Random(7)
    expected = {(a.pk, b.pk): [0.0, 0] for a in versions for b in versions if a != b}
    for _ in range(40):
        a, b = rng.sample(versions, 2)
        winners = [rng.choice([0, 1, None]) for _ in range(rng.randint(0, 4))]  # None: a draw; 0 games: none played
        record_games(a, b, winners, tournament=t, kind="tournament")
        for seat, (me, them) in enumerate(((a, b), (b, a))):
            expected[me.pk, them.pk][0] += sum(1.0 if w == seat else 0.5 if w is None else 0.0 for w in winners)
            expected[me.pk, them.pk][1] += len(winners)
    # entries of matches that are not one bot against another are left out
    alone = Match.objects.create_with_entries([versions[0]], kind="tournament", game="face-to-face", games=1, seed="s")
    MatchEntry.objects.filter(match=alone).update(games=1, wins=1, points=1.0)
    alone.tournament = t
    alone.save(update_fields=["tournament"])
    table = standings.table(t)
    for row, cells in table.crosstable:
        for column, cell in zip(table.standings, cells, strict=True):
            if column is row:
                assert cell is None
                continue
            points, games = expected[row.version.pk, column.version.pk]
            assert cell == (f"{points:g}/{games}" if games else "–")
    for standing in table.standings:
        mine = [value for (me, _), value in expected.items() if me == standing.version.pk]
        assert standing.games == sum(games for _, games in mine)
        assert standing.points == sum(points for points, _ in mine)
