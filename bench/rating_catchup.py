"""Benchmark: store rated matches as fast as the database takes them and time how far the ratings lag behind.

    python -m bench.rating_catchup                                  # 1,000 bots, 5,000 matches of 10 games, 4 storers
    python -m bench.rating_catchup --bots 1000 --matches 5000 --storers 4 --repeat 3

Runs on the configured database (DATABASE_URL, PostgreSQL for real figures) and broker (CELERY_BROKER_URL). It
registers `--bots` ladder bots (once; later runs reuse them), queues the matches as the scheduler would, then
`--storers` processes claim and store them through the worker's own store path (`matches.store`), while a real
Celery worker (`league.arena.ops.workers.worker_command`) runs the coalesced refits. Every match stores the same
pre-played results (ten real games between two house bots): what is timed is storing results and refitting,
never playing a game. A monitor polls `RatingFit` (written in the refit's own transaction).

Printed: matches and games stored per second (sustained, first to last commit), the lag from each match's commit
until the refit covering it was committed (p50 / max; a fit covers the first N games committed, N = its game count),
and the catch-up: from the last commit until the ratings covered every stored game; and the CPU time that storing
takes per match (the storer processes) and a refit per fit (the Celery worker), which a loaded machine does not
distort the way it stretches the wall-clock figures. Load average beside each run. This script prints no goal:
`bench/scale.py` judges issue 8's on a filled database, where `measure_catchup(..., board=URL)` also times the lag
until the leaderboard a user reads shows each match (the committed lag here is a lower bound of that one).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import resource
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

from bench import harness

ROOT = Path(__file__).resolve().parents[1]
GAMES_PER_MATCH = 10
POLL_SECONDS = 0.01
WATCH_EVERY = 5  # with a leaderboard to read: one match in five has the watched version play


def setup_django(queue_name: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    os.environ["ARENA_QUEUE"] = queue_name
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.update(harness.as_in_production())
    import django

    django.setup()


def ensure_bots(game: str, count: int) -> list[int]:
    """`count` active ladder versions of `game` owned by bench users (created in bulk once); their ids."""
    import hashlib

    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.db.models import OuterRef, Subquery

    from league.arena.models import Bot, BotUpload, BotVersion

    names = [f"bench-{k:05}" for k in range(count)]
    with transaction.atomic():
        users = {u.username: u for u in get_user_model().objects.filter(username__startswith="bench-owner-")}
        wanted = [f"bench-owner-{k // 10:04}" for k in range(count)]
        get_user_model().objects.bulk_create(
            [get_user_model()(username=name, is_active=False) for name in sorted(set(wanted) - set(users))]
        )
        users = {u.username: u for u in get_user_model().objects.filter(username__in=set(wanted))}
        existing = set(Bot.objects.filter(name__in=names, game=game).values_list("name", flat=True))
        new_bots = Bot.objects.bulk_create(
            [
                Bot(owner=users[owner], name=name, game=game)
                for name, owner in zip(names, wanted, strict=True)
                if name not in existing
            ]
        )
        sources = {bot.pk: f"# {bot.name}\ndef play(observation):\n    return []\n".encode() for bot in new_bots}
        versions = BotVersion.objects.bulk_create(
            [
                BotVersion(
                    bot=bot,
                    number=1,
                    sha256=hashlib.sha256(sources[bot.pk]).hexdigest(),
                    kind="py",
                    filename="bot.py",
                    size=len(sources[bot.pk]),
                    status="active",
                )
                for bot in new_bots
            ]
        )
        BotUpload.objects.bulk_create([BotUpload(version=v, content=sources[v.bot_id]) for v in versions])
        newest = BotVersion.objects.filter(bot=OuterRef("pk"), status="active").order_by("-number").values("pk")[:1]
        Bot.objects.filter(pk__in=[bot.pk for bot in new_bots]).update(active_version=Subquery(newest))
    return list(
        BotVersion.objects.filter(active_for__game=game, active_for__name__in=names).values_list("pk", flat=True)
    )


def sample_games(game: str) -> list:
    """Real games (logs that replay) between two house bots, reused as every stored match's results."""
    from bots.match import BotSpec, MatchSpec, run_match

    spec = MatchSpec(
        game=game,
        bots=[BotSpec("house:random", "a", "sha256:a"), BotSpec("house:greedy", "b", "sha256:b")],
        games=GAMES_PER_MATCH,
        seed="catchup",
        duplicate=True,
        sandbox=False,
    )
    return run_match(spec).games


def _store_share(
    match_ids: list[int], played: list, out: multiprocessing.Queue, interval: float = 0.0, watched: int | None = None
) -> None:
    """One storer process: claim each match and store it as a worker would; report (commit time, games, whether
    the `watched` version played it).

    With an `interval`, one match is stored every `interval` seconds (a league at a given pace), else flat out.
    """
    from django.db import connections

    from league.arena.models import Match
    from league.arena.play import matches

    connections.close_all()  # never share the parent's connection
    commits = []
    next_at = time.monotonic()
    for match in Match.objects.filter(pk__in=match_ids).order_by("pk"):
        if interval:
            time.sleep(max(0.0, next_at - time.monotonic()))
            next_at += interval
        token = match.claim("bench", matches.lease())
        if token is None:
            continue
        versions = match.ordered_versions()
        matches.store(match, token, versions, SimpleNamespace(games=played, stderr={}))
        commits.append((time.time(), len(played), any(version.pk == watched for version in versions)))
    out.put(commits)
    connections.close_all()


def _monitor(game: str, stop: threading.Event, seen: list[tuple[float, int]]) -> None:
    from django.db import connections

    from league.arena.models import RatingFit

    last = None
    while not stop.is_set():
        games = RatingFit.objects.filter(game=game).values_list("games", flat=True).first() or 0
        if games != last:
            seen.append((time.time(), games))
            last = games
        time.sleep(POLL_SECONDS)
    connections.close_all()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Board:
    """The leaderboard as a user reads it: the league's API page (50 rows, as the site's) that lists one version.

    A user finds the row in two reads, as the API offers: the bot's rank (`/api/bots/<id>/`), then the board's page
    ceil(rank / 50). The rank may move between the two reads (a refit committed in between): a page without the row
    is followed by a fresh rank, and by the next page while the rank stays (bots tied on Elo share a rank)."""

    PER_PAGE = 50
    TRIES = 5

    def __init__(self, url: str, version: int, bot: int) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname, parts.port or 80, parts.path
        self.version, self.bot_path = version, f"/api/bots/{bot}/"
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        self.reads = 0

    def games(self) -> int:
        """The rated games the leaderboard shows for the version now (0 while it shows it unrated)."""
        previous, extra = None, 0
        for _ in range(self.TRIES):
            bot = self._get(self.bot_path)
            rank = bot["rank"]
            if rank is None:
                if not bot["on_ladder"]:
                    raise RuntimeError(f"{self.bot_path} is off the ladder: its version is on no leaderboard page")
                return 0  # listed unrated, after the rated rows
            extra = extra + 1 if rank == previous else 0
            previous = rank
            number = -(-rank // self.PER_PAGE) + extra
            for row in self._get(f"{self.path}?page={number}")["results"]:
                if row["version"]["id"] == self.version:
                    return (row["rating"] or {}).get("games", 0)
        raise RuntimeError(f"version {self.version} was not on {self.path} at its rank {self.TRIES} times in a row")

    def _get(self, path: str) -> dict:
        self.reads += 1
        try:
            self.connection.request("GET", path, headers={"Host": self.host})
            response = self.connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()  # a dropped keep-alive connection: the next request opens a new one
            raise
        if response.status != 200:
            raise RuntimeError(f"{path} answered HTTP {response.status}: {body[:200]!r}")
        return json.loads(body)


def _watch_board(
    board: Board, stop: threading.Event, seen: list[tuple[float, int]], polls: list[float], failed: list[Exception]
) -> None:
    """Read the board as often as it answers; note each time it shows a new game count for the version, and the
    error that stops the reading (the wait for the board then ends with it, not with a timeout)."""
    last = None
    while not stop.is_set():
        began = time.time()
        try:
            games = board.games()
        except Exception as error:
            failed.append(error)
            return
        shown = time.time()  # a user sees the page once it has arrived
        polls.append(shown - began)
        if games != last:
            seen.append((shown, games))
            last = games
        time.sleep(POLL_SECONDS)


def _lags(commits: list[tuple[float, int]], seen: list[tuple[float, int]], start: int) -> list[float]:
    """For each commit (time, games), how long until `seen` (time, games covered) first covered it."""
    lags, covered, position = [], start, 0
    for commit_time, games in commits:
        covered += games
        while seen[position][1] < covered:
            position += 1
        lags.append(max(0.0, seen[position][0] - commit_time))
    return lags


def measure_catchup(
    game: str,
    matches: int,
    storers: int,
    refit_workers: int = 1,
    timeout: float = 120.0,
    rate: float | None = None,
    board: str | None = None,
) -> dict[str, float]:
    """Store `matches` rated matches between random ladder members from `storers` processes; time the ratings.

    Flat out by default (the sustained rate the ratings keep up with); with `rate`, at that many matches a second
    in all (how far the ratings lag behind a league at that pace). Every match stores the same pre-played games
    (`sample_games`): the clock covers storing results and refitting, never playing.

    The lag is timed twice: until the refit covering a match is committed (`RatingFit`), and, given `board` (the
    URL of the game's leaderboard in the league's API, served by a running server on this database), until the
    leaderboard shows it: one match in WATCH_EVERY then has the same version play, and the board is read until
    that version's row shows the games of each of its matches.

    Needs Django set up (see `setup_django`) and at least three ladder members of `game`. Starts and stops its own
    Celery worker (`refit_workers` pool processes) on the configured queue.
    """
    from django.db import connections

    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool
    from league.arena.models import BotVersion, Match, Rating, RatingFit

    members = list(BotVersion.objects.filter(active_for__game=game).order_by("pk").values_list("pk", flat=True))
    if len(members) < 3:
        raise ValueError(f"{game} needs at least three ladder members, it has {len(members)}")
    played = sample_games(game)
    versions = {v.pk: v for v in BotVersion.objects.filter(pk__in=members)}
    watched = members[0] if board else None
    others = [pk for pk in members if pk != watched]
    rng = random.Random(8)
    planned = []
    for k in range(matches):
        pair = [watched, rng.choice(others)] if watched and k % WATCH_EVERY == 0 else rng.sample(others, 2)
        match = Match(kind=Match.Kind.LADDER, game=game, games=len(played), seed=f"catchup-{k}", rated=True)
        planned.append((match, [versions[pk] for pk in pair]))
    created = Match.objects.bulk_create_with_entries(planned)
    refits.refit(RatingPool.ladder(game))  # start from ratings that cover everything already stored
    baseline = RatingFit.objects.get(game=game).games
    log_path = Path(os.environ.get("ARENA_DATA_DIR", "/tmp")) / "catchup-worker.log"
    worker = harness.start_worker(refit_workers, log_path, "--pool", "prefork", env={"ARENA_LADDER_MAX_PENDING": "0"})
    stop, seen, shown, polls, failed = threading.Event(), [], [], [], []
    threads = [threading.Thread(target=_monitor, args=(game, stop, seen), daemon=True)]
    if board:
        reader = Board(board, watched, versions[watched].bot_id)
        watched_before = Rating.objects.filter(version_id=watched).values_list("games", flat=True).first() or 0
        _await(lambda: reader.games() == watched_before, 30, f"{board} to show the ratings the refit stored")
        threads.append(threading.Thread(target=_watch_board, args=(reader, stop, shown, polls, failed), daemon=True))
    try:
        connections.close_all()
        context = multiprocessing.get_context("fork")
        out = context.Queue()
        ids = [match.pk for match in created]
        interval = storers / rate if rate else 0.0
        processes = [
            context.Process(target=_store_share, args=(ids[k::storers], played, out, interval, watched))
            for k in range(storers)
        ]
        for thread in threads:
            thread.start()
        worker_cpu = harness.tree_cpu_seconds(worker.pid)
        storers_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.time()
        for process in processes:
            process.start()
        commits = sorted(c for _ in processes for c in out.get())
        for process in processes:
            process.join()
        total = baseline + sum(games for _, games, _ in commits)
        watched_total = (watched_before + sum(games for _, games, mine in commits if mine)) if board else 0

        def covered() -> bool:
            if failed:
                raise RuntimeError(f"the leaderboard reader stopped: {failed[0]}")
            return bool(seen) and seen[-1][1] >= total and (not board or (shown and shown[-1][1] >= watched_total))

        _await(
            covered, timeout, "the ratings to cover the last match stored" + (" on the leaderboard" if board else "")
        )
        worker_cpu = harness.tree_cpu_seconds(worker.pid) - worker_cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        storers_cpu = after.ru_utime + after.ru_stime - storers_cpu.ru_utime - storers_cpu.ru_stime
    finally:
        stop.set()
        for thread in threads:
            if thread.is_alive():
                thread.join()
        harness.stop_worker(worker, finish_tasks=True)
    lags = _lags([(when, games) for when, games, _ in commits], seen, baseline)
    first, last = commits[0][0], commits[-1][0]
    span = max(last - started, 1e-9)
    figures = {
        "matches": len(commits),
        "games": total - baseline,
        "matches_per_second": len(commits) / span,
        "games_per_second": (total - baseline) / span,
        "lag_p50": statistics.median(lags),
        "lag_p95": _percentile(lags, 0.95),
        "lag_max": max(lags),
        "catch_up": seen[-1][0] - last,
        "fits_seen": len(seen),
        "store_cpu_ms_per_match": 1000 * storers_cpu / max(len(commits), 1),
        "refit_cpu_ms_per_fit": 1000 * worker_cpu / max(len(seen) - 1, 1),
        "first_commit_after": first - started,
    }
    if board:
        visible = _lags([(when, games) for when, games, mine in commits if mine], shown, watched_before)
        figures.update(
            visible_matches=len(visible),
            visible_p50=statistics.median(visible),
            visible_p95=_percentile(visible, 0.95),
            visible_max=max(visible),
            board_read_ms=1000 * statistics.median(polls),
            board_reads=reader.reads / max(len(polls), 1),
        )
    return figures


def _await(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(POLL_SECONDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="face-to-face")
    parser.add_argument("--bots", type=int, default=1000, help="ladder bots to register (reused across runs)")
    parser.add_argument("--matches", type=int, default=5000, help="rated matches of 10 games to store per run")
    parser.add_argument("--storers", type=int, default=4, help="processes storing matches at once")
    parser.add_argument("--refit-workers", type=int, default=1, help="pool processes of the Celery worker")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    setup_django(f"catchup-{os.getpid()}")
    from django.core.management import call_command
    from django.db import connection

    from league.arena.models import Game

    call_command("migrate", interactive=False, verbosity=0)
    ensure_bots(args.game, args.bots)
    print(f"database {connection.vendor} {connection.settings_dict['NAME']}, {args.bots} bots, {args.storers} storers")
    print(
        "clock: storing pre-played results through matches.store (no game is played) and the refits a worker runs; "
        "a match's lag ends when the refit covering it is committed (not when a page shows it)"
    )
    runs = []
    for run in range(args.repeat):
        stored_before = Game.objects.count()
        figures = measure_catchup(args.game, args.matches, args.storers, args.refit_workers)
        load = Path("/proc/loadavg").read_text().split()[:3]
        runs.append(figures)
        print(
            f"run {run + 1}: {stored_before:,} games stored before; {figures['matches']} matches "
            f"({figures['games']} games) at {figures['matches_per_second']:.1f} matches/s "
            f"({figures['games_per_second']:.0f} games/s); refit committed after p50 {figures['lag_p50']:.2f} s, "
            f"p95 {figures['lag_p95']:.2f} s, max {figures['lag_max']:.2f} s; caught up {figures['catch_up']:.2f} s "
            f"after the last match; {figures['fits_seen']} fits seen; CPU: storing "
            f"{figures['store_cpu_ms_per_match']:.0f} ms a match, refit worker {figures['refit_cpu_ms_per_fit']:.0f} "
            f"ms a fit; load {' '.join(load)}"
        )
    if len(runs) > 1:
        rates = [r["matches_per_second"] for r in runs]
        worst = [r["lag_max"] for r in runs]
        print(
            f"over {len(runs)} runs: matches/s min {min(rates):.1f} median {statistics.median(rates):.1f}; "
            f"max lag min {min(worst):.2f} s median {statistics.median(worst):.2f} s"
        )


if __name__ == "__main__":
    main()
