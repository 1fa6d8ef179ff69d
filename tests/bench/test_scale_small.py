"""bench/scale.py end to end at a tiny size on PostgreSQL, so the scale bench cannot rot unnoticed.

The run fills its own database, serves it with gunicorn and times every page; then the stored league is
checked from outside the bench: every game's log replays to its row, the ratings are what a refit from
scratch finds, every game is sealed as the store path seals it, the match tallies count the match table, and a
second run with --reuse keeps the fill.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.scale import secret_key

ROOT = Path(__file__).resolve().parents[2]
SERVER = os.environ.get("DATABASE_URL", "")
SERVER = (
    f"{urlsplit(SERVER).scheme}://{urlsplit(SERVER).netloc}"
    if SERVER.startswith("postgres")
    else "postgres://postgres@127.0.0.1:5432"
)
DATABASE = f"arena_scale_test_{os.getpid()}"
BROKER = os.environ.get("CELERY_BROKER_URL", "")
BROKER = BROKER if BROKER.startswith("redis://") else "redis://127.0.0.1:6379/15"

CHECK = """
import django
django.setup()
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.play import results
from league.arena.models import COMPETITIVE_GAMES, Bot, BotVersion, Game, GameSeat, MatchEntry, PairResult
from league.arena.models import Rating, SeatResult

from collections import Counter
from league.arena.models import Match
from league.arena.ops import tallies
from league.arena.play import seals

games = Game.objects.count()
keys = seals.keys()
for game in Game.objects.iterator(chunk_size=500):
    game.verified_log()
    fields = (game.match_id, game.index, game.game, game.termination, game.winner_seat, game.score)
    assert seals.holds(bytes(game.log_seal), keys, *fields, bytes(game.log_zlib)), f"game {game.pk} is not sealed"
matches = Counter(Match.objects.values_list("kind", "status"))
counted = Counter()
for (kind, status, _), n in tallies.match_counts().items():
    counted[(kind, status)] += n
assert counted == matches, (counted, matches)
for bot in Bot.objects.all():
    assert bot.active_version_id == getattr(bot.newest_active_version(), "pk", None), bot

def aggregates():
    entries = set(MatchEntry.objects.values_list("pk", "games", "wins", "losses", "draws", "points"))
    pairs = set(PairResult.objects.values_list("game", "first", "second", "first_wins", "second_wins", "draws"))
    seats = set(SeatResult.objects.values_list("version", "seat", "games", "wins", "losses", "draws"))
    # A version that no longer plays keeps the rating of its last refit as a player (docs/ratings.md), which a refit
    # from scratch cannot know: its counts must match, its Elo only while it plays.
    playing = set(BotVersion.objects.on_ladder().values_list("pk", flat=True))
    ratings = {
        r.version_id: (round(r.elo, 6) if r.version_id in playing else None, r.games, r.wins, r.losses)
        for r in Rating.objects.all()
    }
    return entries, pairs, seats, ratings

copied = aggregates()
results.rebuild()
Rating.objects.all().delete()
for game in sorted(COMPETITIVE_GAMES):
    assert refits.refit(RatingPool.ladder(game)), f"the refit of {game} found its claim held (a worker killed mid-fit?)"
rebuilt = aggregates()
for name, mine, theirs in zip(("entry results", "pair results", "seat results", "ratings"), copied, rebuilt):
    if isinstance(mine, dict):
        mine, theirs = set(mine.items()), set(theirs.items())
    assert mine == theirs, (
        f"the bench's {name} differ from what rebuild_results computes from the games: "
        f"only the bench's {sorted(mine - theirs)[:3]}, only the rebuild's {sorted(theirs - mine)[:3]}"
    )
print(f"checked {games} games, {GameSeat.objects.count()} seats, {len(rebuilt[1])} pairs, {len(rebuilt[3])} ratings")
"""


PAGES = (
    "home", "ladder face-to-face", "ladder the-game", "ladder extreme", "bot (busiest)", "tournament (100)",
    "tournament live", "match", "game replay", "game log", "metrics",
)  # fmt: skip


def reachable(url: str, port: int) -> bool:
    address = urlsplit(url)
    try:
        socket.create_connection((address.hostname or "127.0.0.1", address.port or port), timeout=2).close()
    except OSError:
        return False
    return True


def run_bench(*extra: str) -> str:
    command = [
        sys.executable, "-m", "bench.scale", "--bots", "20", "--games", "2000", "--logs", "600",
        "--database", DATABASE, "--postgres", SERVER, "--port", "0",
        "--seconds", "1", "--requests", "10", "--rounds", "1", "--clients", "2",
        "--catchup-matches", "30", "--paced-seconds", "2", "--storers", "2", "--broker", BROKER, *extra,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def scale_database():
    yield DATABASE
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


@pytest.mark.slow
@pytest.mark.skipif(not reachable(SERVER, 5432), reason="needs PostgreSQL")
@pytest.mark.skipif(not reachable(BROKER, 6379), reason="needs Redis (the catch-up's Celery broker)")
def test_fills_serves_and_measures_a_small_league(scale_database, tmp_path):
    output = run_bench("--work-dir", str(tmp_path))
    lines = output.strip().splitlines()
    # What must hold at any speed (the time budgets are the bench's to judge): every clock says what it covers,
    # every page answers and is timed with the page cache off and on, the ratings reach the leaderboard, and
    # every goal is judged on a measured figure.
    assert any(line.startswith("fill: ") and "rows/s" in line for line in lines), output
    for clock in ("fill clock: ", "pages clock: ", "clock: storing pre-played results"):
        assert any(line.startswith(clock) for line in lines), f"no {clock!r} line:\n{output}"
    for page in PAGES:
        timed = [line for line in lines if line.startswith(page + " ") and " p95 " in line]
        assert len(timed) == 2, f"{page} not timed with the cache off and on:\n{output}"
    assert any(line.startswith("rating catch-up, flat out: 30 rated matches") for line in lines), output
    assert any(line.startswith("rating lag at 20 matches/s: ") for line in lines), output
    # 2 s at 20 matches a second: 40 matches, one in five with the watched bot
    assert any(line.startswith("  on the leaderboard API: 8 matches of one watched bot shown") for line in lines)

    goals = lines[lines.index("goals:") + 1 : -1]
    assert len(goals) == 1 + 2 * (len(PAGES) + 1) + 2, "\n".join(goals)
    for goal in goals:
        verdict, _, rest = goal.strip().partition("  ")
        assert verdict in ("PASS", "MISS"), goal
        assert "not served" not in rest and "failed" not in rest, goal
    for cache in ("page cache off", "page cache on"):
        assert sum(goal.rstrip().endswith(" ms") and cache in goal for goal in goals) >= len(PAGES), goals
    assert lines[-1].startswith("p95 ms, page cache on/off: home "), lines[-1]

    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=f"{SERVER}/{scale_database}",
        SECRET_KEY=secret_key(scale_database),  # the key the fill sealed the games with
        ARENA_DATA_DIR=str(tmp_path / "check"),
    )
    checked = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The plan's games (2,000, or more where the versions' validation games alone take more), then the catch-up
    # adds 30 matches of 10 games flat out and 40 (2 s at 20 a second) paced.
    planned = int(re.search(r"^plan: (\d+) games planned", output, re.M).group(1))
    assert planned >= 2000
    assert f"checked {planned + 700} games, {2 * (planned + 700)} seats" in checked.stdout

    again = run_bench("--work-dir", str(tmp_path), "--reuse", "--skip-pages", "--skip-catchup")
    assert f"reusing {scale_database}" in again
    assert "it also holds the 70 rated matches earlier catch-ups stored" in again
