"""bench/coop_scale_fill.py at a tiny size on PostgreSQL, so the co-op API bench's fill cannot rot unnoticed: every
game it stores replays to its row, the aggregates it reports are the league's own rebuild from those games, the
ladders are rated, and a second run writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.bench.test_scale_small import ROOT, SERVER, reachable

DATABASE = f"arena_coop_fill_test_{os.getpid()}"

CHECK = """
import django
django.setup()
from league.arena.coop import rebuild as coop_rebuild
from league.arena.models import DealPair, DealResult, Game, SeasonRating, SeasonStanding

for game in Game.objects.filter(game="the-game").iterator(chunk_size=500):
    game.verified_log()
def aggregates():
    return (
        set(DealResult.objects.values_list("season", "players", "version", "deal", "cards_left", "game")),
        set(SeasonStanding.objects.values_list("season", "players", "version", "deals", "wins", "cards_left")),
        set(DealPair.objects.values_list("season", "players", "first", "second", "first_wins", "second_wins", "draws")),
    )
filled = aggregates()
coop_rebuild.rebuild()
assert aggregates() == filled
rated = sorted(set(SeasonRating.objects.values_list("players", flat=True)))
print(f"checked {Game.objects.count()} games, {len(filled[0])} deal results, {len(filled[2])} pairs, rated {rated}")
"""


@pytest.fixture
def database():
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{DATABASE}"')
    yield f"{SERVER}/{DATABASE}"
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


def run(env: dict, *command: str) -> str:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not reachable(SERVER, 5432), reason="needs PostgreSQL")
def test_the_coop_fill_stores_genuine_games_and_the_leagues_own_aggregates(database, tmp_path):
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database,
        ARENA_DATA_DIR=str(tmp_path),
        CACHE_URL="dummy://",
    )
    users = "from django.contrib.auth import get_user_model as u; [u().objects.create_user(f'u{k}') for k in range(3)]"
    run(env, sys.executable, "manage.py", "migrate", "-v0")
    run(env, sys.executable, "manage.py", "shell", "-c", users)
    fill = [sys.executable, "-m", "bench.coop_scale_fill", "--database-url", database]
    output = run(env, *fill, "--bots", "4", "--deals", "150", "--team-sizes", "1,2")
    assert "stored 4 bots, 16 matches, 1200 games, 1800 seats" in output, output
    assert "coop_rebuild.rebuild: 1200 deal results, 8 standings, 12 pairs" in output, output
    checked = run(env, sys.executable, "-c", CHECK)
    assert "checked 1200 games, 1200 deal results, 12 pairs, rated [1, 2]" in checked, checked
    assert "nothing to fill" in run(env, *fill, "--bots", "4", "--deals", "150", "--team-sizes", "1,2")
