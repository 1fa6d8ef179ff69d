"""The bot page's server time on a filled database: the busiest bot, a quiet one, and each paged or filtered view.

Usage (a database loaded by bench/scale.py and migrated, e.g. a copy of the 1M-game benchmark):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> python3 -m bench.bot_page [--runs 30]

Each URL is requested through Django's test client (routing, views, queries, templates: the server's whole work
but the socket) `--runs` times with every cache cleared first (cold: what the first visitor after a refit pays)
and `--runs` times warm. It prints wall and CPU milliseconds (min / median / p95), the query count, and the load
average, since the machine may be shared. Also the cost a refit pays for the rating history at this size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
os.environ.setdefault("CACHE_URL", "")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Sum  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import reverse  # noqa: E402

from league.arena.ladder import history  # noqa: E402
from league.arena.models import Bot, PairResult, SeatResult  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(client: Client, url: str, runs: int, cold: bool) -> dict:
    walls, cpus, queries = [], [], 0
    for _ in range(runs):
        if cold:
            for cache in caches.all():
                cache.clear()
        with CaptureQueriesContext(connection) as run:
            wall, cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            walls.append(1000 * (time.perf_counter() - wall))
            cpus.append(1000 * (time.process_time() - cpu))
        assert response.status_code == 200, (url, response.status_code)
        queries = len(run)
    return {"walls": walls, "cpus": cpus, "queries": queries, "bytes": len(response.content)}


def line(name: str, found: dict) -> str:
    w, c = found["walls"], found["cpus"]
    return (
        f"{name:<34} wall min {min(w):6.1f} med {statistics.median(w):6.1f} p95 {percentile(w, 0.95):6.1f} ms | "
        f"cpu med {statistics.median(c):6.1f} p95 {percentile(c, 0.95):6.1f} ms | {found['queries']:2d} queries | "
        f"{found['bytes'] // 1024} KB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    per_bot = SeatResult.objects.values("version__bot").annotate(games=Sum("games")).order_by("-games")
    busiest = per_bot.first()
    quiet = per_bot.order_by("games").first()
    bots = {
        "busiest": Bot.objects.get(pk=busiest["version__bot"]),
        "quiet": Bot.objects.get(pk=quiet["version__bot"]),
    }
    print(f"database {connection.settings_dict['NAME']}: busiest bot {bots['busiest']} ({busiest['games']} games),")
    print(f"quiet bot {bots['quiet']} ({quiet['games']} games); load average {os.getloadavg()}")
    print(
        "clock: each GET through Django's test client in this process (routing, views, queries, templates; no "
        "socket), wall and CPU time; cold: every cache cleared before each request"
    )
    client = Client()
    for label, bot in bots.items():
        url = reverse("bot", args=[bot.pk])
        version_ids = list(bot.versions.values_list("pk", flat=True))
        pair = PairResult.objects.filter(first_id__in=version_ids).select_related("second").first()
        views = {"": url, "?games=40": url + "?games=40", "?opponents=2": url + "?opponents=2"}
        if pair is not None:
            views[f"?vs={pair.second.bot_id}"] = f"{url}?vs={pair.second.bot_id}"
        for name, target in views.items():
            for cold in (True, False):
                print(line(f"{label} {name} {'cold' if cold else 'warm'}", measure(client, target, args.runs, cold)))
    game = bots["busiest"].game
    cpu, wall = time.process_time(), time.perf_counter()
    stored = history.stored(game)
    _, last = stored.of(stored.versions)
    moved = history.moved(last, _current_points(game, stored.versions))
    print(
        f"history of {len(stored.versions)} rated versions read and compared: "
        f"{1000 * (time.perf_counter() - wall):.1f} ms wall, {1000 * (time.process_time() - cpu):.1f} ms cpu, "
        f"{int(moved.sum())} points to write (0 expected: nothing moved)"
    )
    print(f"load average {os.getloadavg()}")


def _current_points(game: str, versions):
    import numpy as np

    from league.arena.models import Rating

    rows = dict(
        (version, (elo, low, high, games))
        for version, elo, low, high, games in Rating.objects.filter(game=game).values_list(
            "version_id", "elo", "low", "high", "games"
        )
    )
    elo, low, high, games = (np.array(column) for column in zip(*(rows[pk] for pk in versions.tolist()), strict=True))
    return history.Points(elo, low, high, games)


if __name__ == "__main__":
    main()
