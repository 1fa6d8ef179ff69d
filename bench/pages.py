"""Benchmark: the league's pages on a filled PostgreSQL database, cold and cached, in process and through gunicorn.

    python -m bench.pages                                   # 1,000 bots, 50,000 ladder matches, 100-entry tournament
    python -m bench.pages --bots 1000 --matches 100000 --entries 100 --repeat 200 --serve 10

It fills a fresh database in bulk (users, bots with ~9 KB uploads, ratings, ladder matches with their per-entry
results, one tournament whose every pair played, one match with its games), then for each page prints the median
and 95th percentile of wall and CPU milliseconds and its query count, first with the page cache cleared before every
request (cold: what a refit or a stored match costs the next visitor) and then cached. With --serve S it starts
gunicorn (2 workers) on the same database and hammers the leaderboard with 8 client threads for S seconds, cached
per process (CACHE_URL unset) and through Redis. bench/scale.py (engineer H5) is the full-scale measurement at
1,000,000 games; this one is the quick check while working on the pages.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench import harness

ROOT = Path(__file__).resolve().parents[1]


def fill(bots: int, matches: int, entries: int) -> dict[str, str]:
    """The league's rows in bulk; returns the URL of each page to measure."""
    import hashlib
    import random
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.urls import reverse
    from django.utils import timezone

    from league.arena.models import (
        Bot,
        BotUpload,
        BotVersion,
        Game,
        GameSeat,
        Match,
        MatchEntry,
        Rating,
        Tournament,
        TournamentEntry,
    )

    rng = random.Random(8)
    now = timezone.now()
    batch = 5_000
    with transaction.atomic():
        users = get_user_model().objects.bulk_create(
            get_user_model()(username=f"owner{k:04d}") for k in range(max(1, bots // 2))
        )
        made = Bot.objects.bulk_create(Bot(owner=users[k % len(users)], name=f"bot-{k:04d}") for k in range(bots))
        versions = BotVersion.objects.bulk_create(
            BotVersion(bot=bot, number=1, sha256=hashlib.sha256(bot.name.encode()).hexdigest(), kind="py",
                       filename="bot.py", size=9000, status="active")
            for bot in made
        )  # fmt: skip
        BotUpload.objects.bulk_create(
            (BotUpload(version=v, content=rng.randbytes(9000)) for v in versions), batch_size=500
        )
        for bot, version in zip(made, versions, strict=True):
            bot.active_version = version
        Bot.objects.bulk_update(made, ["active_version"], batch_size=batch)
        Rating.objects.bulk_create(
            Rating(version=v, game="face-to-face", elo=1500 + rng.gauss(0, 200), low=0, high=0, games=2000,
                   wins=1000, losses=1000, last_played=now)
            for v in versions
        )  # fmt: skip
        # Ladder matches: a third involve the busiest bot (version 0), the rest random pairs.
        planned = []
        for k in range(matches):
            a = 0 if k % 3 == 0 else rng.randrange(bots)
            b = (a + 1 + rng.randrange(bots - 1)) % bots
            planned.append((Match(kind="ladder", game="face-to-face", games=10, seed=f"l{k}", status="done",
                                  games_done=10, created=now - timedelta(seconds=matches - k)), a, b))  # fmt: skip
        stored = Match.objects.bulk_create([m for m, _, _ in planned], batch_size=batch)
        MatchEntry.objects.bulk_create(
            (
                MatchEntry(match=m, index=i, version=versions[v], games=10, wins=5, losses=5, points=5.0)
                for m, (_, a, b) in zip(stored, planned, strict=True)
                for i, v in enumerate((a, b))
            ),
            batch_size=batch,
        )
        cup = Tournament.objects.create(name="Bench Cup", status="running", games_per_pairing=20)
        field = versions[:entries]
        TournamentEntry.objects.bulk_create(TournamentEntry(tournament=cup, bot=v.bot, version=v) for v in field)
        pairs = [(i, j) for i in range(entries) for j in range(i + 1, entries)]
        played = Match.objects.bulk_create(
            (Match(kind="tournament", game="face-to-face", tournament=cup, games=20, seed=f"t{i}-{j}", status="done",
                   games_done=20) for i, j in pairs),
            batch_size=batch,
        )  # fmt: skip
        MatchEntry.objects.bulk_create(
            (
                MatchEntry(match=m, index=k, version=field[v], games=20, wins=w, losses=20 - w, points=float(w))
                for m, (i, j) in zip(played, pairs, strict=True)
                for k, v, w in ((0, i, 10 + (j - i) % 7), (1, j, 10 - (j - i) % 7))
            ),
            batch_size=batch,
        )
        shown = stored[-1]
        games = Game.objects.bulk_create(
            Game(match=shown, index=k, game="face-to-face", seed=f"s{k}", start_seat=k % 2, termination="stuck",
                 winner_seat=k % 2, turns=40, log_zlib=Game.compress_log({"turns": list(range(200))}))
            for k in range(10)
        )  # fmt: skip
        first, second = planned[-1][1], planned[-1][2]
        GameSeat.objects.bulk_create(
            GameSeat(game=g, seat=s, version=versions[v], points=float(s == g.winner_seat))
            for g in games
            for s, v in enumerate((first, second))
        )
    return {
        "home": reverse("home"),
        "ladder 1": reverse("ladder", args=["face-to-face"]),
        "ladder 2": reverse("ladder", args=["face-to-face"]) + "?page=2",
        "bot (busiest)": reverse("bot", args=[made[0].pk]),
        f"tournament ({entries})": reverse("tournament", args=[cup.pk]),
        "tournament live": reverse("tournament-live", args=[cup.pk]),
        "tournaments": reverse("tournaments"),
        "match": reverse("match", args=[shown.pk]),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(pages: dict[str, str], repeat: int) -> None:
    from django.core.cache import caches
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    print(
        "clock: each GET through Django's test client in this process (no socket), wall and CPU time; cold: every "
        "cache cleared before each request; --serve: each request's wall time at a client thread, through gunicorn"
    )
    print(f"{'page':22} {'cold p50/p95 ms':>16} {'cold CPU ms':>11} {'cached p50/p95 ms':>18} {'cached CPU ms':>13} "
          f"{'queries':>8}")  # fmt: skip
    for name, url in pages.items():
        figures = {}
        for mode in ("cold", "cached"):
            walls, cpus = [], []
            client.get(url)  # warm the connection, the templates and (for "cached") the fragment
            for _ in range(repeat if mode == "cached" else max(5, repeat // 4)):
                if mode == "cold":
                    for cache in caches.all():
                        cache.clear()
                wall, cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                walls.append(1000 * (time.perf_counter() - wall))
                cpus.append(1000 * (time.process_time() - cpu))
                assert response.status_code == 200, (url, response.status_code)
            figures[mode] = (statistics.median(walls), percentile(walls, 0.95), statistics.median(cpus))
        for cache in caches.all():
            cache.clear()
        with CaptureQueriesContext(connection) as run:
            client.get(url)
        (c50, c95, ccpu), (w50, w95, wcpu) = figures["cold"], figures["cached"]
        print(f"{name:22} {c50:7.1f} / {c95:6.1f} {ccpu:11.1f} {w50:8.1f} / {w95:7.1f} {wcpu:13.1f} {len(run):8}")


def hammer(port: int, path: str, clients: int, seconds: float) -> tuple[float, float, float]:
    """(requests/s, p50 ms, p95 ms) of `clients` threads requesting `path` back to back for `seconds`."""
    latencies: list[float] = []
    stop = time.monotonic() + seconds
    lock = threading.Lock()

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        while time.monotonic() < stop:
            start = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            assert response.status == 200, response.status
            mine.append(1000 * (time.perf_counter() - start))
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(latencies) / (time.monotonic() - began), statistics.median(latencies), percentile(latencies, 0.95)


def serve_and_hammer(database_url: str, data_dir: str, path: str, seconds: float, cache_url: str | None) -> None:
    env = dict(os.environ, DATABASE_URL=database_url, ARENA_DATA_DIR=data_dir, DEBUG="false", SECRET_KEY="bench",
               ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="WARNING")  # fmt: skip
    env.pop("CACHE_URL", None)
    if cache_url:
        env["CACHE_URL"] = cache_url
    with harness.gunicorn(env) as server:
        hammer(server.port, path, 8, 1.0)  # every worker connected and its cache primed
        rate, p50, p95 = hammer(server.port, path, 8, seconds)
    label = cache_url or "per-process memory"
    print(f"gunicorn 2 workers, 8 clients, {path} ({label}): {rate:.0f} requests/s, p50 {p50:.1f} ms, "
          f"p95 {p95:.1f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=50_000, help="ladder matches (a third for the busiest bot)")
    parser.add_argument("--entries", type=int, default=100, help="tournament entries, every pair played")
    parser.add_argument("--repeat", type=int, default=100, help="cached requests per page (cold: a quarter)")
    parser.add_argument("--serve", type=float, default=0, help="seconds of 8 concurrent clients through gunicorn")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/2", help="the Redis cache --serve also tries")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench_pages")
    args = parser.parse_args()

    harness.fresh_postgres(args.database_url)
    data_dir = tempfile.mkdtemp(prefix="bench-pages-")
    os.environ.update(DJANGO_SETTINGS_MODULE="league.settings", DATABASE_URL=args.database_url,
                      ARENA_DATA_DIR=data_dir, LOG_LEVEL="WARNING", ALLOWED_HOSTS="testserver", DEBUG="false",
                      SECRET_KEY="bench")  # fmt: skip
    os.environ.pop("CACHE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    started = time.perf_counter()
    pages = fill(args.bots, args.matches, args.entries)
    call_command("shell", command="from django.db import connection; connection.cursor().execute('ANALYZE')")
    print(f"filled {args.bots} bots, {args.matches} ladder matches, a {args.entries}-entry tournament in "
          f"{time.perf_counter() - started:.0f} s; load average {open('/proc/loadavg').read().split()[0]}")  # fmt: skip
    measure(pages, args.repeat)
    if args.serve:
        for cache_url in (None, args.redis):
            serve_and_hammer(args.database_url, data_dir, pages["ladder 1"], args.serve, cache_url)
    print(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
