"""Placement on a real league (issue 22): how soon a new version's rating can be trusted after it becomes active.

    python -m bench.placement                                   # 30 bots, 2 worker processes, PostgreSQL + Redis
    python -m bench.placement --bots 30 --workers 2 --newcomers 2

A fresh PostgreSQL database, its own Celery queues and one worker of `--workers` pool processes with the sandbox on
(DEBUG off), the league's own ladder scheduling (ARENA_LADDER_MAX_PENDING as configured; the beat's periodic
schedule is run by this script every --interval seconds, the league schedules on its own whenever a refit stores
ratings or a version becomes active). The house bots are registered as the league registers them (anchors); then
`--bots` bots of mixed strength are uploaded as one-file bots (their source through the upload check) and validated
like any upload: copies of the house bots random, greedy and the expert's Face to Face specialist, and "mixes" that
play a random turn with a given chance and greedy's otherwise (`mix75` = 75 % random). The league plays until
each has played `--warmup` ladder matches (by default as many as a version's placement takes, so the newcomer
joins a ladder of placed bots, as it usually does); then each newcomer (a copy of greedy, as a typical upload) is
uploaded, validated, and watched from its activation (`validated_at`) until it has played `--settle` ladder matches (or
`--limit` seconds passed): its stored rating (Elo and 95 % interval) and the distinct opponents it was rated
against, polled every 0.25 s.

Printed per newcomer: the time from its activation until its 95 % interval is within +-60 Elo and it was rated
against >= 8 distinct opponents (the goal: <= 5 minutes, judged PASS or MISS), and, beside it, until its Elo stays
within +-60 of the value it ends the run with (with >= 8 opponents), its matches and games by then, and the load.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import secrets
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import harness

GAME = "face-to-face"
HALF_WIDTH = 60.0  # Elo: the 95 % interval within +-60
OPPONENTS = 8
GOAL_SECONDS = 300.0
MIX = "random,mix75,mix50,mix25,greedy,expert"
CLOCK = (
    "clock: from the newcomer's activation (validated_at, its validation games passed) to the first poll (every "
    "0.25 s) of its stored rating that meets the mark; the league's other bots keep playing meanwhile"
)


def source_of(kind: str) -> bytes:
    """A one-file bot of the given strength (see the module's notes)."""

    def module_source(module: str) -> str:
        return Path(importlib.util.find_spec(module).origin).read_text()

    if kind == "expert":
        return module_source("bots.house.expert_face_to_face").encode()
    if kind in ("random", "greedy"):
        return module_source("bots.house.random_bot" if kind == "random" else "bots.house.greedy").encode()
    match = re.fullmatch(r"mix(\d\d)", kind)
    if not match:
        raise SystemExit(f"unknown bot kind {kind!r}: random, greedy, expert or mixNN (NN % random turns)")
    # random_bot's own `new_game` stays; greedy's `_Turn` (a superset of the shared rules) replaces random's, which
    # Face to Face's turns (no Extreme commands) do not use.
    random_part = re.sub(r"^def play\(", "def _random_play(", module_source("bots.house.random_bot"), flags=re.M)
    greedy_part = re.sub(r"^def play\(", "def _greedy_play(", module_source("bots.house.greedy"), flags=re.M)
    greedy_part = greedy_part.replace("from __future__ import annotations\n", "")
    chooser = f"""

RANDOM_SHARE = {int(match.group(1)) / 100}


def play(observation):
    draw = random.Random(f"mix:{{observation['seat']}}:{{observation['turn']}}:{{observation['hand']}}").random()
    return _random_play(observation) if draw < RANDOM_SHARE else _greedy_play(observation)
"""
    return (random_part + "\n" + greedy_part + chooser).encode()


def upload(owner, name: str, kind: str, note: str = ""):
    from league.arena.models import Bot
    from league.arena.uploads.intake import UploadRejected, add_version, inspect_upload

    bot = Bot.objects.create(owner=owner, name=name, game=GAME)
    try:
        add_version(bot, inspect_upload(f"{kind}.py", source_of(kind) + f"\n# {note}\n".encode()))
    except UploadRejected as error:
        raise SystemExit(f"the bot {kind} cannot be uploaded: {error}") from None
    return bot


@dataclass
class Sample:
    seconds: float
    elo: float | None
    half_width: float | None
    games: int
    opponents: int
    matches_done: int


@dataclass
class Placement:
    kind: str
    samples: list[Sample] = field(default_factory=list)
    goal_seconds: float | None = None
    near_final_seconds: float | None = None
    final_elo: float | None = None
    load: list[float] = field(default_factory=list)


def sample(version_id: int, since: float) -> Sample:
    from django.db.models import Q

    from league.arena.models import Match, PairResult, Rating

    rating = Rating.objects.filter(version_id=version_id).values_list("elo", "low", "high", "games").first()
    pairs = PairResult.objects.filter(Q(first_id=version_id) | Q(second_id=version_id), game=GAME)
    opponents = sum(1 for wins in pairs.values_list("first_wins", "second_wins", "draws") if sum(wins))
    done = Match.objects.filter(kind=Match.Kind.LADDER, status=Match.Status.DONE, entries__version_id=version_id)
    elo, low, high, games = rating if rating else (None, None, None, 0)
    half = (high - low) / 2 if rating else None
    return Sample(round(time.time() - since, 2), elo, half, games, opponents, done.count())


def judge(placement: Placement) -> None:
    """The first sample meeting the goal, and the first from which the Elo stays within +-60 of its final value."""
    samples = placement.samples
    placement.final_elo = samples[-1].elo
    for s in samples:
        if s.half_width is not None and s.half_width <= HALF_WIDTH and s.opponents >= OPPONENTS:
            placement.goal_seconds = s.seconds
            break
    if placement.final_elo is None:
        return
    since = None
    for s in samples:
        near = s.elo is not None and abs(s.elo - placement.final_elo) <= HALF_WIDTH and s.opponents >= OPPONENTS
        since = (since if since is not None else s.seconds) if near else None
    placement.near_final_seconds = since


class Beat(threading.Thread):
    """What the league's beat does for the ladder: schedule every `interval` seconds (the bench has no beat)."""

    def __init__(self, interval: float) -> None:
        super().__init__(daemon=True)
        self.interval, self.stop = interval, threading.Event()

    def run(self) -> None:
        from django.db import connections

        from league.arena.ladder import scheduling

        while not self.stop.wait(self.interval):
            scheduling.schedule(GAME)
        connections.close_all()


def place(args: argparse.Namespace, owner, number: int, worker, log_path: Path) -> Placement:
    from league.arena.models import BotVersion

    bot = upload(owner, f"newcomer-{number}", args.newcomer, f"newcomer {number} {secrets.token_hex(4)}")
    version = bot.versions.get()
    harness.await_validation([bot], worker, log_path, args.limit)
    version.refresh_from_db()
    if version.status != BotVersion.Status.ACTIVE:
        raise SystemExit(f"the newcomer failed validation: {version.failure_reason}")
    since = version.validated_at.timestamp()
    placement = Placement(args.newcomer, load=[round(os.getloadavg()[0], 2)])
    next_print = time.time() + args.print_every
    while True:
        if worker.poll() is not None:
            raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
        now = sample(version.pk, since)
        placement.samples.append(now)
        if time.time() >= next_print:
            print(f"  {now}", flush=True)
            next_print += args.print_every
        if now.matches_done >= args.settle or now.seconds >= args.limit:
            break
        time.sleep(0.25)
    placement.load.append(round(os.getloadavg()[0], 2))
    judge(placement)
    return placement


def await_warmup(matches: int, worker, log_path: Path, timeout: float) -> float:
    """Wait until every uploaded bot has played `matches` ladder matches; the seconds it took."""
    from django.db.models import Count, Q

    from league.arena.models import BotVersion, Match

    started = time.monotonic()
    uploads = BotVersion.objects.filter(bot__owner__username="bench").annotate(
        played=Count(
            "match_entries",
            filter=Q(match_entries__match__kind=Match.Kind.LADDER, match_entries__match__status=Match.Status.DONE),
        )
    )
    while (fewest := min(uploads.values_list("played", flat=True))) < matches:
        if worker.poll() is not None:
            raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
        if time.monotonic() - started > timeout:
            raise SystemExit(f"warm-up: a bot has played {fewest} of {matches} ladder matches after {timeout:.0f} s")
        time.sleep(1.0)
    return time.monotonic() - started


def run(args: argparse.Namespace, data_dir: Path, database_url: str) -> dict:
    harness.sandboxed_league(database_url, data_dir, f"placement-{os.getpid()}", args.broker_url)
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from league.arena.models import FORFEITS, Game, Match
    from league.arena.uploads.house import ensure_house_bots

    ensure_house_bots()
    owner = get_user_model().objects.create(username="bench")
    kinds = args.mix.split(",")
    for kind in kinds + [args.newcomer]:
        source_of(kind)  # an unknown kind stops the run before anything starts
    log_path = data_dir / "worker.log"
    worker = harness.start_worker(args.workers, log_path)
    beat = Beat(args.interval)
    try:
        started = time.monotonic()
        bots = [
            upload(owner, f"{kinds[k % len(kinds)]}-{k:02d}", kinds[k % len(kinds)], str(k)) for k in range(args.bots)
        ]
        harness.await_validation(bots, worker, log_path, args.limit * 3)
        validated = time.monotonic() - started
        print(f"{args.bots} uploads validated in {validated:.0f} s; load {os.getloadavg()[0]:.2f}", flush=True)
        beat.start()
        warmup_matches = settings.ARENA_LADDER_PLACEMENT_MATCHES if args.warmup is None else args.warmup
        warmup = await_warmup(warmup_matches, worker, log_path, args.limit * 3)
        done = Match.objects.filter(kind=Match.Kind.LADDER, status=Match.Status.DONE).count()
        print(
            f"warm-up: every bot played >= {warmup_matches} ladder matches in {warmup:.0f} s ({done} matches); "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        placements = []
        for number in range(args.newcomers):
            placement = place(args, owner, number, worker, log_path)
            placements.append(placement)
            print(f"newcomer {number}: {describe(placement)}", flush=True)
    finally:
        beat.stop.set()
        harness.stop_worker(worker)
    ladder = Match.objects.filter(kind=Match.Kind.LADDER)
    print(f"the ladder at the end, median Elo by kind: {ladder_by_kind()}")
    return {
        "bots": args.bots,
        "mix": args.mix,
        "workers": args.workers,
        "max_pending": settings.ARENA_LADDER_MAX_PENDING,
        "placement_parallel": settings.ARENA_LADDER_PLACEMENT_PARALLEL,
        "ladder_matches": ladder.filter(status=Match.Status.DONE).count(),
        "failed_matches": ladder.filter(status=Match.Status.FAILED).count(),
        "forfeits": Game.objects.filter(match__kind=Match.Kind.LADDER, termination__in=FORFEITS).count(),
        "validation_seconds": round(validated, 1),
        "warmup_seconds": round(warmup, 1),
        "placements": [
            {k: v for k, v in asdict(p).items() if k != "samples"} | {"end": asdict(p.samples[-1])} for p in placements
        ],
    }


def ladder_by_kind() -> str:
    """Each kind of bot's median Elo (house bots by name), to see where the newcomers were placed."""
    import statistics

    from league.arena.models import Rating

    kinds: dict[str, list[float]] = {}
    for name, owner, elo in Rating.objects.filter(game=GAME).values_list(
        "version__bot__name", "version__bot__owner__username", "elo"
    ):
        kind = name.rsplit("-", 1)[0] if owner == "bench" else f"house:{name}"
        kinds.setdefault(kind, []).append(elo)
    ordered = sorted(kinds.items(), key=lambda item: -statistics.median(item[1]))
    return ", ".join(f"{kind} {statistics.median(elos):.0f} ({len(elos)})" for kind, elos in ordered)


def reached(placement: Placement, seconds: float | None) -> str:
    if seconds is None:
        return "not reached"
    at = next(s for s in placement.samples if s.seconds >= seconds)
    return f"{seconds:.0f} s ({at.matches_done} matches, {at.games} games, {at.opponents} opponents)"


def describe(placement: Placement) -> str:
    end = placement.samples[-1]
    return (
        f"95 % interval within +-{HALF_WIDTH:.0f} Elo with >= {OPPONENTS} opponents after "
        f"{reached(placement, placement.goal_seconds)}; Elo within +-{HALF_WIDTH:.0f} of its final "
        f"{placement.final_elo or 0:.0f} for good after {reached(placement, placement.near_final_seconds)}; at the end "
        f"({end.seconds:.0f} s): {end.matches_done} matches, {end.games} games, {end.opponents} opponents, "
        f"+-{end.half_width or 0:.0f} Elo; load {placement.load[0]} -> {placement.load[-1]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=30, help="uploaded bots on the ladder before the newcomer")
    parser.add_argument("--mix", default=MIX, help=f"their kinds, cycled (default {MIX})")
    parser.add_argument("--newcomer", default="greedy", help="the newcomer's kind (default greedy)")
    parser.add_argument("--newcomers", type=int, default=1, help="newcomers placed one after another")
    parser.add_argument("--workers", type=int, default=2, help="worker pool processes (default 2)")
    parser.add_argument(
        "--warmup",
        type=int,
        help="ladder matches every bot plays before the first newcomer (default ARENA_LADDER_PLACEMENT_MATCHES: "
        "the newcomer joins a ladder whose bots are placed, as a new version usually does)",
    )
    parser.add_argument("--settle", type=int, default=50, help="watch a newcomer until it has played this many")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds to watch a newcomer at most")
    parser.add_argument("--interval", type=float, default=30.0, help="seconds between periodic schedules")
    parser.add_argument("--print-every", type=float, default=30.0)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    print(
        f"placement: {args.bots} bots ({args.mix}), {args.workers} worker process(es), sandboxed; "
        f"load {harness.loadavg()} on {os.cpu_count()} CPUs",
        flush=True,
    )
    print(CLOCK)
    with tempfile.TemporaryDirectory(prefix="arena-placement-") as data_dir:
        url = harness.fresh_postgres(args.database_url, f"arena_placement_{os.getpid()}")
        try:
            result = run(args, Path(data_dir), url)
        finally:
            from django.db import connections

            connections.close_all()
            harness.drop_postgres(url)
    goals = [p["goal_seconds"] for p in result["placements"]]
    ok = all(goal is not None and goal <= GOAL_SECONDS for goal in goals)
    shown = ", ".join("not reached" if goal is None else f"{goal:.0f} s" for goal in goals)
    print(
        f"{harness.verdict(ok)}  from activation to a 95 % interval within +-{HALF_WIDTH:.0f} Elo and >= {OPPONENTS} "
        f"distinct opponents in <= {GOAL_SECONDS / 60:.0f} minutes: {shown}"
    )
    stored = result["failed_matches"] == 0
    print(
        f"{harness.verdict(stored)}  every ladder match stored: {result['ladder_matches']} done, "
        f"{result['failed_matches']} failed, {result['forfeits']} forfeited games; load {harness.loadavg()}"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
