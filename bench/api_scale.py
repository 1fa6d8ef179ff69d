"""Benchmark: the REST API's list endpoints on a filled league database, in process (no network), read only.

    python -m bench.api_scale --database-url postgres://postgres@127.0.0.1:5432/arena_scale  # filled by bench/scale.py
    python -m bench.api_scale --database-url ... --repeat 50

Nothing is written (no migration either: the database must already be at this code's migrations). Each URL is
requested twice to warm up, then `--repeat` times by an anonymous client and, for the lists whose query depends on
who asks, by a signed-in non-staff owner; prints p50 / p95 wall time, median CPU time and the query count per URL,
and PASS or MISS against the goal (p95 <= 100 ms). Request rates are lifted so throttling does not interfere.
The same URLs belong in bench/scale.py's gunicorn timings. The co-op lists are timed when the database holds a
co-op season (bench/coop_scale_fill.py adds one at scale).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GOAL_MS = 100.0


COOP_URLS = [
    "/api/seasons/",
    "/api/seasons/{season}/",
    "/api/seasons/{season}/deals/",
    "/api/seasons/{season}/deals/?page=15",
    "/api/seasons/{season}/deals/{deal}/",
    "/api/seasons/{season}/deals/{deal}/?players={team}&page=2",
    "/api/seasons/{season}/results/",
    "/api/seasons/{season}/results/?players={team}&page=4",
    "/api/seasons/{season}/results/?bot={coop_bot}",
    "/api/seasons/{season}/leaderboard/",
    "/api/seasons/{season}/leaderboard/?players={team}&page=4",
    "/api/seasons/{season}/leaderboard/?page_size=200",
]


def urls(ids: dict) -> list[str]:
    coop = COOP_URLS if "season" in ids else []
    return [
        "/api/users/",
        "/api/users/{user}/",
        "/api/bots/",
        "/api/bots/?game=face-to-face&active=true",
        "/api/bots/?page=20",
        "/api/bots/{bot}/versions/",
        "/api/bots/{bot}/ratings/",
        "/api/tournaments/",
        "/api/tournaments/{tournament}/",
        "/api/tournaments/{tournament}/standings/",
        "/api/tournaments/{tournament}/crosstable/",
        "/api/matches/",
        "/api/matches/?page=1000",
        "/api/matches/?kind=ladder&rated=true",
        "/api/matches/?bot={bot}",
        "/api/matches/?version={version}",
        "/api/matches/{match}/",
        "/api/matches/{match}/games/",
        "/api/games/{game}/",
        "/api/leaderboards/face-to-face/",
        "/api/leaderboards/face-to-face/?page=10",
        "/api/leaderboards/face-to-face/?page_size=200",
        *coop,
    ]


def pick_ids() -> dict:
    """The busiest bot (most match entries), its newest version, the biggest tournament, the newest match and game;
    the current co-op season with the most results, a deal in its middle, its largest team size and a bot on it."""
    from django.db.models import Count

    from league.arena.models import Bot, Game, Match, MatchEntry, Season, SeasonStanding, Tournament

    busiest = (
        MatchEntry.objects.values("version__bot_id")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .values_list("version__bot_id", flat=True)[:1]
    )
    bot = Bot.objects.select_related("owner").get(pk=busiest[0])
    tournament = Tournament.objects.annotate(n=Count("entries")).order_by("-n").first()
    match = Match.objects.filter(status=Match.Status.DONE).exclude(kind=Match.Kind.VALIDATION).order_by("-pk").first()
    season = Season.objects.filter(current=True).annotate(n=Count("results")).order_by("-n").first()
    coop = {}
    if season is not None:  # filled by bench/coop_scale_fill.py
        coop_bot = SeasonStanding.objects.filter(season=season).order_by("-deals", "version_id").first()
        coop = {
            "season": season.pk,
            "deal": season.deals // 2,
            "team": season.team_sizes[-1],
            "coop_bot": coop_bot.version.bot_id if coop_bot else 0,
        }
    return coop | {
        "bot": bot.pk,
        "bot_owner": bot.owner,
        "user": bot.owner.username,
        "version": bot.versions.order_by("-number").values_list("pk", flat=True).first(),
        "tournament": tournament.pk,
        "match": match.pk,
        "game": Game.objects.filter(match=match).values_list("pk", flat=True).first(),
    }


def time_url(client, url: str, repeat: int) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(2):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code, response.content[:200])
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        client.get(url)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    walls.sort()
    return {
        "p50": statistics.median(walls),
        "p95": walls[max(0, round(0.95 * len(walls)) - 1)],
        "cpu": statistics.median(cpus),
        "queries": len(queries),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=args.database_url,
        DEBUG="false",
        SECRET_KEY="bench",
        ALLOWED_HOSTS="testserver",
        API_THROTTLE_ANON="1000000/minute",
        API_THROTTLE_USER="1000000/minute",
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.db import connection
    from rest_framework.test import APIClient

    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE relname = 'arena_game'")
        (games,) = cursor.fetchone()
    ids = pick_ids()
    owner = ids.pop("bot_owner")
    print(f"database: ~{games:,} games; busiest bot {ids['bot']}, tournament {ids['tournament']}, match {ids['match']}")
    print(f"load average before: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print(
        "clock: each request through DRF's test client in this process, request in to response out (no server, no "
        "network), wall and CPU time, after two warm-up requests"
    )
    anonymous, signed_in = APIClient(), APIClient()
    signed_in.force_authenticate(owner)
    misses = []
    for template in urls(ids):
        url = template.format(**ids)
        runs = [("anonymous", anonymous)]
        if template.startswith("/api/matches/") or "/versions/" in template:
            runs.append(("owner", signed_in))
        for who, client in runs:
            figures = time_url(client, url, args.repeat)
            verdict = "PASS" if figures["p95"] <= GOAL_MS else "MISS"
            if verdict == "MISS":
                misses.append(f"{url} ({who})")
            print(
                f"{verdict} {url:48} {who:9} p50 {figures['p50']:6.1f} ms  p95 {figures['p95']:6.1f} ms  "
                f"cpu {figures['cpu']:5.1f} ms  {figures['queries']} queries"
            )
    print(f"load average after: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print("all API lists within 100 ms p95" if not misses else f"MISS: {', '.join(misses)}")


if __name__ == "__main__":
    main()
