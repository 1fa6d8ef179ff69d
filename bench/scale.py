"""Benchmark: the league at scale. Fill PostgreSQL in bulk, serve it with gunicorn, time its pages.

    python -m bench.scale --bots 1000 --games 1000000            # the issue's size (fill <= 10 minutes)
    python -m bench.scale --bots 1000 --games 1000000 --reuse    # measure again without refilling
    python -m bench.scale --bots 20 --games 2000 --seconds 2     # a quick look

1. Fill: a fresh database (--database, dropped and created) is migrated by Django, then every table is
   loaded with COPY from a seeded plan (bench/scale_plan.py): owners, bots, versions (some failed),
   validation, ladder and tournament matches (one 100-entry double round robin) and their games. Each
   game carries a genuine log from a pool the house bots play on every core (bench/scale_logs.py), so
   `Game.verified_log()` passes. Aggregates are copied from the same plan, then one rating refit runs.
   The parameters are recorded in the database, so --reuse skips a fill that is already there.
2. Pages: gunicorn (2 workers, DEBUG off) serves the database; each page is timed sequentially (p50, p95,
   p99 and the server's CPU per request), and the Face to Face leaderboard also under 8 concurrent clients,
   twice: with the page cache off (every request renders, as the first one after each refit or stored match
   does) and as deployed (the default page cache: after the warm-up, hits until a refit). Both are judged;
   --explain shows why a page misses its goal. A page that does not answer 200 misses.
3. Rating catch-up: bench/rating_catchup.py's `measure_catchup` stores rated matches as fast as the
   database allows (--storers processes), a real Celery worker refitting (Redis broker, --broker), and
   reports the sustained rate and the catch-up after the last match; then at 20 matches a second, it reads
   the leaderboard API (gunicorn, page cache on) until it shows each match of a watched bot. Every match
   stores the same pre-played results: storing and refitting are timed, playing is not. Those matches stay
   in the database.

Every goal of issue 8 is printed with PASS or MISS, and every clock says what it covers; the last line sums up
the p95s with the page cache on and off.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import harness

ROOT = Path(__file__).resolve().parents[1]

MARKER_TABLE = "scale_bench_fill"
FILL_ORDER = (
    "auth.User",
    "arena.Bot",
    "arena.BotVersion",
    "arena.BotUpload",
    "arena.Tournament",
    "arena.TournamentEntry",
    "arena.Match",
    "arena.MatchEntry",
    "arena.Game",
    "arena.GameSeat",
    "arena.PairResult",
    "arena.SeatResult",
)
# Filled by the rating refit that ends the fill (the rating history starts with it), by the league itself on first
# use, or left empty: not by the plan.
NOT_PLANNED = {
    "arena.Rating",
    "arena.RatingFit",
    "arena.ScheduleLock",
    "arena.RatingPoint",
    # The co-op challenge seasons start empty: the benchmark's league is a Face to Face one at scale.
    "arena.Season",
    "arena.DealResult",
    "arena.SeasonStanding",
    "arena.DealPair",
    "arena.SeasonRating",
    # Nobody has asked for a scrim yet, nor started a version test.
    "arena.MatchRequest",
    # Nobody has been told anything yet.
    "arena.Notification",
    "arena.NotificationSetting",
    # Nobody has asked for an analysis yet, and the pre-played results carry no bot output.
    "arena.GameAnalysis",
    "arena.GameOutput",
    # No worker's environment has broken.
    "arena.WorkerHealth",
    # Nobody has started a version test.
    "arena.VersionTest",
    # Written by the match table's triggers as the matches are copied (league/arena/models/tallies.py).
    "arena.MatchTally",
    # Counted from the copied games (`count_forfeits`), as the migration that brought them counts a league's.
    "arena.ForfeitCount",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=positive, default=1000, help="user bots (house bots come on top)")
    parser.add_argument("--games", type=positive, default=1_000_000, help="stored games in all")
    parser.add_argument("--logs", type=positive, default=20_000, help="genuine Face to Face logs in the pool")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default="arena_scale", help="PostgreSQL database (dropped and created)")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432", help="server URL, no database")
    parser.add_argument("--reuse", action="store_true", help="keep a database already filled with these parameters")
    parser.add_argument("--port", type=port_number, default=8765, help="gunicorn's port (0: any free one)")
    parser.add_argument("--web-workers", type=positive, default=2)
    parser.add_argument("--requests", type=positive, default=100, help="timed requests per page and round at most")
    parser.add_argument("--rounds", type=positive, default=3, help="rounds over all pages (median p95 is judged)")
    parser.add_argument("--seconds", type=float, default=10.0, help="time limit per page and round")
    parser.add_argument("--clients", type=positive, default=8, help="concurrent clients on the leaderboard")
    parser.add_argument("--catchup-matches", type=positive, default=2000, help="rated matches the catch-up stores")
    parser.add_argument("--storers", type=positive, default=4, help="processes storing matches in the catch-up")
    parser.add_argument(
        "--paced-seconds", type=positive, default=30, help="how long the lag is measured at 20 rated matches/s"
    )
    parser.add_argument("--refit-workers", type=positive, default=1, help="Celery pool processes refitting")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/15", help="Celery broker of the catch-up")
    parser.add_argument("--skip-pages", action="store_true")
    parser.add_argument("--explain", action="store_true", help="show the queries and plan of every page that misses")
    parser.add_argument("--uncached", action="store_true", help=argparse.SUPPRESS)  # always done now; old lines run
    parser.add_argument("--skip-catchup", action="store_true")
    parser.add_argument("--work-dir", type=Path, default=None, help="data folder (default /tmp/scale-DATABASE)")
    return parser.parse_args(argv)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def port_number(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0 to 65535)")
    return value


def secret_key(database: str) -> str:
    """The SECRET_KEY of the league a bench database holds: the same for every process that opens it."""
    return hashlib.sha256(f"scale-bench-{database}".encode()).hexdigest()


def configure(args: argparse.Namespace) -> dict[str, str]:
    """Point Django at the bench's own database and data folder; returns the environment for gunicorn."""
    work = args.work_dir or Path(f"/tmp/scale-{args.database}")
    (work / "var").mkdir(parents=True, exist_ok=True)
    os.environ.update(
        SECRET_KEY=secret_key(args.database),  # the fill seals the games with it (bench.export checks them)
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=f"{args.postgres}/{args.database}",
        ARENA_DATA_DIR=str(work / "var"),
        LOG_LEVEL="WARNING",
        ARENA_QUEUE=f"scale-{os.getpid()}",  # the catch-up's refits go to a queue no other worker serves
        CELERY_BROKER_URL=args.broker,
    )
    return dict(
        os.environ,
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_COOKIES="false",
        ARENA_METRICS_ALLOWED_IPS="127.0.0.1",
    )


# --- the database ---------------------------------------------------------------------------------
def admin_connection(args: argparse.Namespace) -> Any:
    import psycopg

    return psycopg.connect(f"{args.postgres}/postgres", autocommit=True)


def database_exists(args: argparse.Namespace) -> bool:
    with admin_connection(args) as connection:
        return (
            connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [args.database]).fetchone() is not None
        )


def recreate_database(args: argparse.Namespace) -> None:
    from psycopg import sql

    with admin_connection(args) as connection:
        name = sql.Identifier(args.database)
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        connection.execute(sql.SQL("CREATE DATABASE {}").format(name))


def fill_parameters(args: argparse.Namespace) -> dict[str, Any]:
    """What makes two fills the same: the sizes, the seed and the schema (its applied migrations)."""
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    applied = sorted(f"{app}.{name}" for app, name in MigrationRecorder(connection).applied_migrations())
    return {
        "bots": args.bots,
        "games": args.games,
        "logs": args.logs,
        "seed": args.seed,
        "schema": hashlib.sha256("\n".join(applied).encode()).hexdigest()[:16],
    }


def recorded_fill(parameters: dict[str, Any]) -> dict[str, Any] | None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [MARKER_TABLE])
        if cursor.fetchone()[0] is None:
            return None
        cursor.execute(f"SELECT parameters, figures FROM {MARKER_TABLE}")
        row = cursor.fetchone()
    if row is None or json.loads(row[0]) != parameters:
        return None
    return json.loads(row[1])


def record_fill(parameters: dict[str, Any], figures: dict[str, Any]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {MARKER_TABLE} (parameters text NOT NULL, figures text NOT NULL)")
        cursor.execute(f"DELETE FROM {MARKER_TABLE}")
        cursor.execute(
            f"INSERT INTO {MARKER_TABLE} VALUES (%s, %s)", [json.dumps(parameters), json.dumps(figures, default=str)]
        )


# --- the fill -------------------------------------------------------------------------------------
def fill(args: argparse.Namespace) -> dict[str, Any]:
    from django.apps import apps
    from django.conf import settings

    from bench import scale_logs, scale_plan
    from league.arena.uploads.house import house_sha256

    began = time.perf_counter()
    pool = scale_logs.play_pool(face_to_face=args.logs, coop=max(40, args.logs // 20), crashes=max(5, args.logs // 500))
    pooled = time.perf_counter()
    print(f"log pool: {len(pool)} genuine games played in {pooled - began:.1f} s on {os.cpu_count()} cores", flush=True)
    planner = scale_plan.Planner(args.bots, args.games, args.seed, datetime.now(UTC), settings, house_sha256)
    plan = planner.plan(scale_logs.LogBins(pool))
    planned = time.perf_counter()
    print(f"plan: {plan.summary['arena.Game']} games planned in {planned - pooled:.1f} s", flush=True)
    check_models(plan, apps)
    rows = copy_plan(plan)
    fold_tallies()
    count_forfeits()
    refit_seconds = refit_all()
    vacuum()
    total = time.perf_counter() - began
    figures = {
        "fill_seconds": round(total, 1),
        "rows": rows,
        "rows_per_second": round(rows / total),
        "refit_seconds": round(refit_seconds, 2),
        "busiest_bot": plan.busiest_bot,
        "tournament": plan.big_tournament,
        "match": plan.sample_match,
        "game": plan.sample_game,
        "load": harness.loadavg(),
    }
    return figures


def copy_plan(plan: Any) -> int:
    """COPY every planned table in one transaction, indexes and constraints built once at the end; rows copied."""
    from django.apps import apps
    from django.core.management.color import no_style
    from django.db import connection, transaction

    from bench import scale_copy

    rows = 0
    began = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        rebuilds = []
        for label in plan_models(plan, apps):
            table, model = plan.tables[label], apps.get_model(label)
            leftover = scale_copy.unplanned(model, table.columns)
            if leftover:
                print(f"  {label}: planned columns not in the schema (skipped): {', '.join(leftover)}")
            rebuild = scale_copy.detach_indexes(cursor, model._meta.db_table)
            for statement in rebuild.drops:
                cursor.execute(statement)
            rebuilds.append(rebuild)
            started = time.perf_counter()
            scale_copy.copy_model(cursor, model, table.columns, table.rows, connection)
            rows += table.rows
            print(f"  {label}: {table.rows} rows in {time.perf_counter() - started:.1f} s", flush=True)
        copied = time.perf_counter()
        for statement in [create for rebuild in rebuilds for create in rebuild.creates]:
            cursor.execute(statement)
        models = [apps.get_model(label) for label in plan_models(plan, apps)]
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)
        indexed = time.perf_counter()
    print(
        f"copy: {rows} rows in {copied - began:.1f} s ({rows / (copied - began):.0f} rows/s); "
        f"indexes and constraints in {indexed - copied:.1f} s",
        flush=True,
    )
    return rows


def model_or_none(apps: Any, label: str) -> Any:
    try:
        return apps.get_model(label)
    except LookupError:
        return None


def plan_models(plan: Any, apps: Any) -> list[str]:
    return [label for label in FILL_ORDER if label in plan.tables and model_or_none(apps, label) is not None]


def check_models(plan: Any, apps: Any) -> None:
    """Refuse to fill when the league has a table the plan knows nothing about (an aggregate, say)."""
    known = set(FILL_ORDER) | NOT_PLANNED
    unknown = [m._meta.label for m in apps.get_app_config("arena").get_models() if m._meta.label not in known]
    if unknown:
        raise SystemExit(
            f"bench/scale.py does not know how to fill {', '.join(unknown)}: plan it in bench/scale_plan.py "
            "(or its rows would be missing and the pages and ratings would not match the games)"
        )


def refit_all() -> float:
    """One rating refit of every competitive game, as a worker runs it after a stored match."""
    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool
    from league.arena.models import COMPETITIVE_GAMES

    started = time.perf_counter()
    for game in sorted(COMPETITIVE_GAMES):
        refits.refit(RatingPool.ladder(game))
    seconds = time.perf_counter() - started
    print(f"rating refit: {seconds:.2f} s", flush=True)
    return seconds


def count_forfeits() -> None:
    """Each version's forfeits by kind, which the league keeps as it stores games, counted from the copied games."""
    from league.arena.play import results

    started = time.perf_counter()
    rows = results.rebuild_forfeits()
    print(f"forfeit counts: {rows} rows in {time.perf_counter() - started:.1f} s", flush=True)


def fold_tallies() -> None:
    """The match table's triggers counted each copied match in a row of its own; the upkeep folds them within
    seconds in a live league, so /metrics/ is measured with them folded."""
    from league.arena.ops import tallies

    started = time.perf_counter()
    folded = tallies.compact()
    print(f"match tallies: {folded} rows folded in {time.perf_counter() - started:.1f} s", flush=True)


def vacuum() -> None:
    """What autovacuum would have done to a long-lived database: statistics and visibility maps."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"vacuum analyze: {time.perf_counter() - started:.1f} s", flush=True)


# --- the pages ------------------------------------------------------------------------------------
def pages(figures: dict[str, Any]) -> list[tuple[str, str]]:
    game = figures["game"]
    tournament = figures["tournament"]
    return [
        ("home", "/"),
        ("ladder face-to-face", "/ladder/face-to-face/"),
        ("ladder the-game", "/ladder/the-game/"),
        ("ladder extreme", "/ladder/extreme/"),
        ("bot (busiest)", f"/bots/{figures['busiest_bot']}/"),
        ("tournament (100)", f"/tournaments/{tournament}/"),
        ("tournament live", f"/tournaments/{tournament}/live/"),
        ("match", f"/matches/{figures['match']}/"),
        ("game replay", f"/games/{game}/"),
        ("game log", f"/games/{game}/log.json"),
        ("metrics", "/metrics/"),  # issue 26: a Prometheus scrape (the bench's address is allowed)
    ]


# page name -> p95 goal in ms (issue 8; /metrics/ issue 26)
GOALS_MS = {
    "home": 100,
    "ladder face-to-face": 100,
    "ladder the-game": 100,
    "ladder extreme": 100,
    "bot (busiest)": 100,
    "tournament (100)": 150,
    "tournament live": 150,
    "match": 50,
    "game replay": 50,
    "game log": 50,
    "metrics": 50,  # issue 26
}
CONCURRENT_RATE_GOAL = 100.0
RATING_LAG_GOAL_S = 2.0
RATED_RATE_GOAL = 20.0
CACHE_ON, CACHE_OFF = "page cache on", "page cache off"
FILL_CLOCK = (
    "fill clock: from playing the log pool to the end of VACUUM ANALYZE (plan, COPY, indexes, refit included; "
    "creating and migrating the database not)"
)
PAGES_CLOCK = (
    "pages clock: each request's wall time at the client, from sending the GET to reading the last byte, on a "
    "keep-alive connection after 3 warm-up requests; server CPU: the web workers' and their database backends'"
)


def measure_pages(args: argparse.Namespace, env: dict[str, str], figures: dict[str, Any], title: str) -> dict[str, Any]:
    """Every page timed in --rounds interleaved rounds (load on a shared machine comes and goes); per page, the
    round with the median p95 stands for it."""
    from bench import scale_http

    work = Path(env["ARENA_DATA_DIR"]).parent
    measured: dict[str, list[Any]] = {}
    crowd_label = f"ladder x{args.clients} clients"
    with harness.gunicorn(env, args.port, args.web_workers, work / "gunicorn.log") as server:
        meter = scale_http.CpuMeter(server.process, lambda: database_backends(args))
        print(f"\npages, {title} (gunicorn, {args.web_workers} workers, port {server.port}):")
        for round_number in range(1, args.rounds + 1):
            print(f" round {round_number} of {args.rounds} (load {harness.loadavg()})", flush=True)
            for name, path in [*pages(figures), ("concurrent", "/ladder/face-to-face/")]:
                clients = args.clients if name == "concurrent" else 1
                timing = scale_http.measure(
                    server.port, path, args.requests * clients, args.seconds, clients=clients, meter=meter
                )
                measured.setdefault(name, []).append(timing)
                print(timing.line(crowd_label if name == "concurrent" else name), flush=True)
    results = {name: median_round(timings) for name, timings in measured.items()}
    if args.rounds > 1:
        print(f" over {args.rounds} rounds (load {harness.loadavg()}):")
        for name, timings in measured.items():
            p95s = sorted(timing.p95 for timing in timings if timing.count)
            if p95s:
                label = crowd_label if name == "concurrent" else name
                print(f"  {label:<22} p95 min {p95s[0]:7.1f} ms  median {results[name].p95:7.1f} ms")
    return results


def median_round(timings: list[Any]) -> Any:
    measured = sorted((timing for timing in timings if timing.count), key=lambda timing: timing.p95)
    return measured[(len(measured) - 1) // 2] if measured else timings[-1]


def database_backends(args: argparse.Namespace) -> list[int]:
    """The PostgreSQL server processes serving the bench's database (the web workers' connections)."""
    with admin_connection(args) as connection:
        rows = connection.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [args.database]).fetchall()
    return [pid for (pid,) in rows]


def page_goals(results: dict[str, Any], clients: int, cache: str) -> list[tuple[str, bool, str]]:
    """Issue 8's page goals judged on one run (`cache` names it); a page that does not answer 200 misses."""
    goals = []
    for name, limit in GOALS_MS.items():
        timing = results.get(name)
        goal = f"{name} p95 <= {limit} ms, {cache}"
        if timing is None or not timing.count:
            goals.append((goal, False, f"HTTP {timing.status if timing else '-'}: not served"))
            continue
        goals.append((goal, timing.p95 <= limit and timing.errors == 0, _timing_value(timing)))
    crowd = results.get("concurrent")
    goal = f"ladder with {clients} clients >= {CONCURRENT_RATE_GOAL:.0f} req/s, {cache}"
    if crowd is None or not crowd.count:
        goals.append((goal, False, f"HTTP {crowd.status if crowd else '-'}: not served"))
    else:
        ok = crowd.rate >= CONCURRENT_RATE_GOAL and crowd.errors == 0
        goals.append((goal, ok, f"{crowd.rate:.1f} req/s, p95 {crowd.p95:.1f} ms" + _errors(crowd)))
    return goals


def _timing_value(timing: Any) -> str:
    return f"{timing.p95:.1f} ms" + _errors(timing)


def _errors(timing: Any) -> str:
    return f" ({timing.errors} of {timing.count} requests failed)" if timing.errors else ""


def explain_misses(runs: list[dict[str, Any]], figures: dict[str, Any]) -> None:
    """The queries and plan of every page that misses its goal in any of the `runs`."""
    from bench import scale_explain

    for name, path in pages(figures):
        p95s = [run[name].p95 for run in runs if name in run and run[name].count]
        if p95s and max(p95s) > GOALS_MS[name]:
            print(f"\nwhy {name} misses ({' / '.join(f'{p95:.1f}' for p95 in p95s)} ms p95):")
            print(scale_explain.explain_page(path), flush=True)


# --- rating catch-up ------------------------------------------------------------------------------
CATCHUP_CLOCK = (
    "clock: storing pre-played results (the same ten real games each match; no game is played) from --storers "
    "processes, a Celery worker refitting; a match's lag runs from its commit until the refit covering it is "
    "committed, and until the leaderboard API (served by gunicorn, page cache on) shows it"
)


def catchup(args: argparse.Namespace, env: dict[str, str]) -> tuple[list[tuple[str, bool, str]], str]:
    """Rated matches stored as fast as the database allows, then at 20 a second while the leaderboard a user
    reads is watched, a real Celery worker refitting (H1's measure).

    The matches it stores stay in the database (a --reuse run measures the pages over them too).
    """
    from bench import rating_catchup
    from league.arena.models import FACE_TO_FACE

    # The watcher reads far faster than a person: at 1,000 bots ~80 requests a second. DRF's user throttle limits
    # an anonymous client by its address too, so both rates are lifted.
    served_env = dict(env, API_THROTTLE_ANON="1000000/minute", API_THROTTLE_USER="1000000/minute")
    work = Path(env["ARENA_DATA_DIR"]).parent
    visible_goal = f"ratings on the leaderboard <= {RATING_LAG_GOAL_S:g} s after each match at {RATED_RATE_GOAL:g}/s"
    stored_goal = (
        f"rated results stored >= {RATED_RATE_GOAL:g} matches/s, ratings caught up <= {RATING_LAG_GOAL_S:g} s later"
    )
    try:
        flat_out = rating_catchup.measure_catchup(
            FACE_TO_FACE, args.catchup_matches, args.storers, refit_workers=args.refit_workers
        )
        with harness.gunicorn(served_env, args.port, args.web_workers, work / "gunicorn.log") as server:
            paced = rating_catchup.measure_catchup(
                FACE_TO_FACE,
                int(RATED_RATE_GOAL * args.paced_seconds),
                args.storers,
                refit_workers=args.refit_workers,
                rate=RATED_RATE_GOAL,
                board=f"{server.url}/api/leaderboards/{FACE_TO_FACE}/",
            )
    except Exception as error:  # a broken catch-up must not cost the page figures already measured
        note = f"the catch-up failed: {error!r}"
        return [(visible_goal, False, note), (stored_goal, False, note)], note
    rate, caught_up = flat_out["matches_per_second"], flat_out["catch_up"]
    paced_ok = paced["matches_per_second"] >= 0.95 * RATED_RATE_GOAL  # else the pace asked for was not kept
    line = (
        f"{CATCHUP_CLOCK}\nrating catch-up, flat out: {_catchup_line(flat_out)}; caught up {caught_up:.2f} s after "
        f"the last\nrating lag at {RATED_RATE_GOAL:g} matches/s: {_catchup_line(paced)}\n"
        f"  on the leaderboard API: {paced['visible_matches']} matches of one watched bot shown "
        f"{paced['visible_p50']:.2f} s (p50), {paced['visible_p95']:.2f} s (p95), {paced['visible_max']:.2f} s (max) "
        f"after their commit; a look (the bot's rank, then its page: {paced['board_reads']:.2f} reads) took "
        f"{paced['board_read_ms']:.0f} ms (median) "
        f"(load {harness.loadavg()})"
    )
    visible_value = f"max {paced['visible_max']:.2f} s over {paced['visible_matches']} matches" + (
        "" if paced_ok else f"; pace not kept: {paced['matches_per_second']:.1f}/s"
    )
    return [
        (visible_goal, paced["visible_max"] <= RATING_LAG_GOAL_S and paced_ok, visible_value),
        (
            stored_goal,
            rate >= RATED_RATE_GOAL and caught_up <= RATING_LAG_GOAL_S,
            f"{rate:.1f}/s, caught up in {caught_up:.2f} s",
        ),
    ], line


def _catchup_line(figures: dict[str, float]) -> str:
    return (
        f"{figures['matches']} rated matches at {figures['matches_per_second']:.1f} matches/s "
        f"({figures['games_per_second']:.0f} games/s); refit committed {figures['lag_p50']:.2f} s (p50), "
        f"{figures['lag_p95']:.2f} s (p95), {figures['lag_max']:.2f} s (max) after a match; "
        f"{figures['fits_seen']} fits; CPU {figures['store_cpu_ms_per_match']:.1f} ms per stored match, "
        f"{figures['refit_cpu_ms_per_fit']:.0f} ms per fit"
    )


# --- main -----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = configure(args)
    reuse = args.reuse and database_exists(args)
    if not reuse:
        recreate_database(args)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    parameters = fill_parameters(args)
    figures = recorded_fill(parameters) if reuse else None
    if figures is not None:
        print(f"reusing {args.database}: filled earlier with {parameters} in {figures['fill_seconds']} s")
        if figures.get("catchup_matches"):
            print(f"  it also holds the {figures['catchup_matches']} rated matches earlier catch-ups stored")
    else:
        if reuse:
            print(f"{args.database} holds another fill (or none): refilling")
            from django.db import connection

            connection.close()
            recreate_database(args)
            call_command("migrate", interactive=False, verbosity=0)
        print(f"filling {args.database}: {args.bots} bots, {args.games} games (load {harness.loadavg()})", flush=True)
        figures = fill(args)
        record_fill(parameters, figures)
    print(
        f"fill: {figures['fill_seconds']} s, {figures['rows']} rows, {figures['rows_per_second']} rows/s, "
        f"refit {figures['refit_seconds']} s (load {figures['load']})",
        flush=True,
    )
    print(FILL_CLOCK)
    goals = [(f"fill {args.games} games <= 600 s", figures["fill_seconds"] <= 600, f"{figures['fill_seconds']} s")]
    results: dict[str, Any] = {}
    uncached: dict[str, Any] = {}
    if not args.skip_pages:
        from django.db import connection

        connection.close()  # gunicorn's workers get the database to themselves
        print(f"\n{PAGES_CLOCK}")
        uncached = measure_pages(args, dict(env, CACHE_URL="dummy://"), figures, f"{CACHE_OFF}: every request renders")
        results = measure_pages(args, env, figures, f"{CACHE_ON}: after the warm-up, cache hits until a refit")
        goals += page_goals(uncached, args.clients, CACHE_OFF) + page_goals(results, args.clients, CACHE_ON)
        if args.explain:
            explain_misses([uncached, results], figures)
    if not args.skip_catchup:
        catchup_goals, line = catchup(args, env)
        print(f"\n{line}", flush=True)
        goals += catchup_goals
        figures["catchup_matches"] = (
            figures.get("catchup_matches", 0) + args.catchup_matches + int(RATED_RATE_GOAL * args.paced_seconds)
        )
        record_fill(parameters, figures)
    print("\ngoals:")
    for name, ok, value in goals:
        print(f"  {harness.verdict(ok)}  {name:<72} {value}")
    summary = ", ".join(
        f"{name} {timing.p95:.0f}/{uncached[name].p95:.0f}"
        for name, timing in results.items()
        if name != "concurrent" and timing.count and uncached[name].count
    )
    crowd = results.get("concurrent")
    if crowd is not None and crowd.count:
        summary += f"; ladder x{args.clients}: {crowd.rate:.0f} req/s p95 {crowd.p95:.0f}"
    print(f"p95 ms, page cache on/off: {summary or 'pages not measured'} (load {harness.loadavg()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
