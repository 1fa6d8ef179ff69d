"""Standings and crosstable are computed from the stored games."""

from league.arena import tournaments
from league.arena.models import Tournament, TournamentEntry


def test_it_ranks_by_points_and_fills_the_crosstable(alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")
    t = Tournament.objects.create(name="Cup", status="running")
    for v in (a, b, c):
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    record_games(a, b, [0, 0, 1], tournament=t, kind="tournament")  # a 2, b 1
    record_games(b, c, [0, 0, 0], tournament=t, kind="tournament")  # b 3, c 0
    record_games(a, c, [1, 0], tournament=t, kind="tournament")  # a 1, c 1
    record_games(a, b, [1] * 5)  # ladder games do not count
    table = tournaments.table(t)
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
