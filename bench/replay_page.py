"""Benchmark: the replay page (/games/<id>/) for the longest games the rules allow, among thousands of stored games.

    python -m bench.replay_page                                  # a fresh PostgreSQL database on 127.0.0.1
    python -m bench.replay_page --games 5000 --requests 300 --loads 20

Prints, against the goals of issue 12:
- server time per request (Django test client, in this process): wall and CPU, median and p95, with a new
  database connection per request (the default) and with persistent ones, beside the JSON log of the same game
  as a yardstick, in alternating blocks; and where it goes (decompress + engine verification, per-turn
  snapshots; the rest is queries, template and Django);
- first render in Chromium: navigation start to the board built (the page's `replay-drawn` performance mark)
  and painted (`replay-painted`, two animation frames later), the page served by gunicorn (2 workers, DEBUG off,
  static files by WhiteNoise, persistent connections), with a cold cache in a new browser context (Chromium
  starts a renderer process first), on reload, and following a link from another page of the site with the
  HTTP cache off (what a reader opening a game from a match page waits for);
- page weight: the HTML plus the replay's script and style sheet, as sent and gzipped.

No game of these rules reaches 120 turns: every turn places at least one card (two in Face to Face, and in the
co-op games while cards are left to draw), so Face to Face ends within 59 turns and the co-op games within 98,
about 60-70 in practice. The longest game is built instead: five seats of The Game that each play as few cards as
they can. The cost grows with the turns; the per-turn figures printed with it scale the result to 120 turns.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench import harness

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
GOALS = {"server_p95_ms": 50.0, "first_render_ms": 300.0, "weight_kb": 150.0}


def lean_turn(state):
    """The legal turn with the fewest plays, each the closest fit that still lets the turn be completed."""
    import games

    builder = state.builder()
    plays = []
    while builder.end_reason() is not None:
        options = []
        for play in builder.next_plays():
            branch = builder.copy()
            branch.apply(play.card, play.pile)
            if branch.can_complete():
                top = builder.tops[play.pile]
                gap = play.card - top if play.pile.startswith("up") else top - play.card
                options.append((gap, play))
        if not options:
            raise RuntimeError("the lean player has no way to complete its turn")
        play = min(options)[1]
        builder.apply(play.card, play.pile)
        plays.append(play)
    return games.Turn(tuple(plays))


def longest_game(seeds: int) -> dict:
    """The longest of `seeds` five-seat games of The Game played lean, with bot-like turn times."""
    import games

    best = None
    timer = random.Random(7)
    for seed in range(seeds):
        state = games.new_game("the-game", 5, f"bench-pages-{seed}")
        state.log.set_bots([("bench/lean", "sha256:" + "0" * 64)] * 5)
        while state.outcome is None:
            state.push(lean_turn(state), ms=timer.uniform(0.5, 80))
        log = state.log.to_json()
        if best is None or len(log["turns"]) > len(best["turns"]):
            best = log
    games.replay(best)
    return best


def face_to_face_logs(count: int) -> list[dict]:
    from bots.match import BotSpec, MatchSpec, run_match

    spec = MatchSpec(
        game="face-to-face",
        bots=[BotSpec("house:random"), BotSpec("house:greedy")],
        games=count,
        seed="bench-pages",
        sandbox=False,
    )
    return [result.log for result in run_match(spec).games]


def fill(total: int, long_log: dict, filler: list[dict]) -> int:
    """Store `total` games (the filler logs over and over, 100 per match) and the long game; its id."""
    from django.contrib.auth import get_user_model

    from league.arena.models import Bot, BotVersion, Game, GameSeat, Match, MatchEntry

    owner = get_user_model().objects.create(username="bench")
    versions = []
    for name, game in (("lean", "the-game"), ("random", "face-to-face"), ("greedy", "face-to-face")):
        bot = Bot.objects.create(owner=owner, name=name, game=game)
        sha = hashlib.sha256(name.encode()).hexdigest()
        versions.append(BotVersion.objects.create(bot=bot, number=1, sha256=sha, kind="py", status="active"))
    lean, first, second = versions
    blobs = [(log, Game.compress_log(log)) for log in filler]
    for start in range(0, total, 100):
        match = Match.objects.create(kind="ladder", game="face-to-face", games=100, seed="bench", status="done")
        MatchEntry.objects.bulk_create(
            [MatchEntry(match=match, index=index, version=version) for index, version in enumerate((first, second))]
        )
        rows = []
        for index in range(min(100, total - start)):
            log, blob = blobs[(start + index) % len(blobs)]
            result = log["result"]
            rows.append(
                Game(match=match, index=index, game="face-to-face", seed=log["seed"], start_seat=log["start_seat"],
                     termination=result["termination"], winner_seat=result["winner"], detail=result["detail"],
                     turns=len(log["turns"]), log_zlib=blob)
            )  # fmt: skip
        stored = Game.objects.bulk_create(rows)
        GameSeat.objects.bulk_create(
            [GameSeat(game=game, seat=seat, version=(first, second)[seat]) for game in stored for seat in (0, 1)]
        )
    match = Match.objects.create(kind="exhibition", game="the-game", games=1, players=5, seed="bench", status="done")
    MatchEntry.objects.create(match=match, index=0, version=lean)
    result = long_log["result"]
    game = Game.objects.create(
        match=match, index=0, game="the-game", seed=long_log["seed"], start_seat=long_log["start_seat"],
        termination=result["termination"], score=result["score"], fault_seat=None, detail=result["detail"],
        turns=len(long_log["turns"]), log_zlib=Game.compress_log(long_log),
    )  # fmt: skip
    GameSeat.objects.bulk_create([GameSeat(game=game, seat=seat, version=lean) for seat in range(5)])
    return game.pk


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


# (path name, database connection age): the replay page with a new connection per request (the default) and with
# persistent ones, and the JSON log (the same verification, no snapshots, no template) as a yardstick.
MODES = {
    "replay page, new connection per request (DATABASE_CONN_MAX_AGE=0, the default)": ("game", 0),
    "replay page, persistent connections (DATABASE_CONN_MAX_AGE=60)": ("game", 60),
    "yardstick: the JSON log /games/<id>/log.json, new connection per request": ("game-log", 0),
}


def server_times(game_id: int, requests: int, block: int = 20) -> dict:
    """Wall and CPU ms per request in each mode, in alternating blocks so all see the same load."""
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    client = Client(HTTP_HOST="127.0.0.1")
    times = {mode: {"wall": [], "cpu": []} for mode in MODES}
    pages = {}
    while len(times[next(iter(MODES))]["wall"]) < requests:
        for mode, (name, max_age) in MODES.items():
            url = reverse(name, args=[game_id])
            connection.close()
            connection.settings_dict["CONN_MAX_AGE"] = max_age
            client.get(url)  # the block's first request opens the connection in either mode: not timed
            for _ in range(block):
                started, started_cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                times[mode]["wall"].append((time.perf_counter() - started) * 1000)
                times[mode]["cpu"].append((time.process_time() - started_cpu) * 1000)
                assert response.status_code == 200
            pages[name] = response.content
    connection.close()
    return {"modes": times, "html": pages["game"]}


def breakdown(game_id: int, repeats: int) -> dict[str, float]:
    """Median ms of each step of the page for this game."""
    from league.arena.models import Game
    from league.arena.play.replay_data import viewer_data

    game = Game.objects.get(pk=game_id)
    steps: dict[str, list[float]] = {"verify": [], "snapshots": []}
    for _ in range(repeats):
        started = time.process_time()
        log = game.verified_log()
        steps["verify"].append((time.process_time() - started) * 1000)
        started = time.process_time()
        viewer_data(log, [])
        steps["snapshots"].append((time.process_time() - started) * 1000)
    return {step: statistics.median(values) for step, values in steps.items()}


def page_weight(html: bytes) -> dict[str, tuple[int, int]]:
    from django.contrib.staticfiles import finders

    parts = {"html": html}
    for name in ("arena/replay.js", "arena/replay.css"):
        parts[name.split(".")[-1]] = Path(finders.find(name)).read_bytes()
    return {name: (len(body), len(gzip.compress(body, 6))) for name, body in parts.items()}


def first_render(game_id: int, database_url: str, data_dir: str, loads: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    env = dict(
        os.environ,
        DATABASE_URL=database_url,
        DATABASE_CONN_MAX_AGE="60",
        ARENA_DATA_DIR=data_dir,
        DEBUG="false",
        SECRET_KEY="bench-pages",
        LOG_LEVEL="WARNING",
    )
    # Functions, not expressions: Playwright evaluates an expression with eval, which the site's policy refuses.
    drawn = "() => performance.getEntriesByName('replay-drawn')[0].startTime"
    painted = "() => performance.getEntriesByName('replay-painted')[0]?.startTime"
    with harness.gunicorn(env) as server:
        url = f"{server.url}/games/{game_id}/"
        runs: dict[str, list[float]] = {
            "cold": [],
            "cold_paint": [],
            "warm": [],
            "warm_paint": [],
            "in_site": [],
            "in_site_paint": [],
            "busy": [],
        }

        def record(page, kind: str) -> None:
            page.wait_for_function(painted)
            runs[kind].append(page.evaluate(drawn))
            runs[f"{kind}_paint"].append(page.evaluate(painted))

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for _ in range(loads):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                devtools = context.new_cdp_session(page)
                devtools.send("Performance.enable")
                page.goto(url)
                record(page, "cold")
                # The renderer's main-thread time for the cold load (script, style, layout, paint): the part of
                # the render a busy machine stretches in wall time but not in work.
                metrics = {m["name"]: m["value"] for m in devtools.send("Performance.getMetrics")["metrics"]}
                runs["busy"].append(metrics["TaskDuration"] * 1000)
                page.reload()
                record(page, "warm")
                # Following a link from another page of the site (the renderer is up) with the HTTP cache off.
                devtools.send("Network.enable")
                devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
                page.goto(url.split("/games/")[0] + "/")
                page.goto(url)
                record(page, "in_site")
                context.close()
            browser.close()
        return runs


def summary(values: list[float]) -> str:
    return f"min {min(values):.1f}  median {statistics.median(values):.1f}  p95 {percentile(values, 0.95):.1f} ms"


def verdict(value: float, goal: float) -> str:
    return f"{harness.verdict(value <= goal)} (goal <= {goal:g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=5000, help="games stored besides the long one (default 5000)")
    parser.add_argument("--seeds", type=int, default=30, help="lean five-seat games played to find the longest")
    parser.add_argument("--requests", type=int, default=300, help="timed requests per connection mode (default 300)")
    parser.add_argument("--loads", type=int, default=20, help="page loads in Chromium (default 20)")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="arena-bench-pages-") as data_dir:
        url = harness.fresh_postgres(args.database_url, f"arena_pages_{os.getpid()}")
        os.environ.update(
            DJANGO_SETTINGS_MODULE="league.settings", DATABASE_URL=url, ARENA_DATA_DIR=data_dir, LOG_LEVEL="WARNING"
        )
        try:
            import django

            django.setup()
            from django.core.management import call_command

            call_command("migrate", interactive=False, verbosity=0)
            long_log = longest_game(args.seeds)
            turns = len(long_log["turns"])
            game_id = fill(args.games, long_log, face_to_face_logs(20))
            print(f"load before: {Path('/proc/loadavg').read_text().split()[:3]}")
            print(
                f"database: {args.games + 1} games; the page of a {turns}-turn game of The Game, 5 seats "
                f"(the longest of {args.seeds} lean games)"
            )
            print(
                "clock: server time per request in this process (the Django test client, request in to response "
                "out, no network); first render: Chromium's navigation start to the page's performance marks"
            )
            times = server_times(game_id, args.requests)
            steps = breakdown(game_id, 50)
            for mode, figures in times["modes"].items():
                goal = verdict(percentile(figures["wall"], 0.95), GOALS["server_p95_ms"])
                print(f"server, {mode}:")
                print(f"  wall {summary(figures['wall'])}  ({len(figures['wall'])} requests)  {goal}")
                print(f"  CPU  {summary(figures['cpu'])}")
            per_turn = (steps["verify"] + steps["snapshots"]) / turns
            print(
                f"  of which: verify {steps['verify']:.2f} ms, per-turn snapshots {steps['snapshots']:.2f} ms "
                f"(median CPU); engine work {per_turn * 1000:.0f} us/turn, so 120 turns would add "
                f"{per_turn * (120 - turns):.1f} ms"
            )
            weight = page_weight(times["html"])
            total = sum(size for size, _ in weight.values())
            parts = ", ".join(
                f"{name} {size / 1024:.1f} KB ({packed / 1024:.1f} gzipped)" for name, (size, packed) in weight.items()
            )
            print(f"page weight  {total / 1024:.1f} KB: {parts}  {verdict(total / 1024, GOALS['weight_kb'])}")
            scaled = total + weight["html"][0] * (120 - turns) / turns  # all of the HTML counted as per-turn data
            print(
                f"  scaled to 120 turns: at most {scaled / 1024:.1f} KB  {verdict(scaled / 1024, GOALS['weight_kb'])}"
            )
            render = first_render(game_id, url, data_dir, args.loads)
            goal = verdict(percentile(render["cold_paint"], 0.95), GOALS["first_render_ms"])
            print(f"first render, new browser context, cold cache: board built {summary(render['cold'])}")
            print(f"  (a renderer process starts first)          board painted {summary(render['cold_paint'])}  {goal}")
            print(f"  renderer main-thread time of that load: {summary(render['busy'])}")
            goal = verdict(percentile(render["in_site_paint"], 0.95), GOALS["first_render_ms"])
            print(f"first render, link from a site page, cache off: board built {summary(render['in_site'])}")
            print(f"                                          board painted {summary(render['in_site_paint'])}  {goal}")
            print(f"first render, reload:     board built {summary(render['warm'])}")
            print(f"                          board painted {summary(render['warm_paint'])}")
            print(f"load after: {Path('/proc/loadavg').read_text().split()[:3]}")
        finally:
            from django.db import connections

            connections.close_all()
            harness.drop_postgres(url)


if __name__ == "__main__":
    main()
