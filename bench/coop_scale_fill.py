"""Benchmark fill: a co-op challenge season at scale in a league database bench/scale.py filled, for
bench/api_scale.py's co-op endpoints (and a timing of the co-op part of `rebuild_results`).

    python -m bench.coop_scale_fill --database-url postgres://postgres@127.0.0.1:5432/arena_scale
    python -m bench.coop_scale_fill --database-url ... --bots 200 --deals 1000 --team-sizes 1,2

Adds --bots bots of The Game (owned by the league's users, one active version each) and a current season of
--deals deals played by every bot alone and in self-play teams of each team size: one done challenge match per
100-deal chunk, one game per deal with its seats. Every game carries a genuine log: the house bots `greedy` and
`random` play the season's real deals (alone and as teams) first, and each bot's game on a deal is one of those
two plays of that deal, chosen at random, so the game replays to its row and bots differ on the same cards.
The co-op aggregates (deal results, standings, duplicate comparisons) are then computed by the league's own
`coop_rebuild.rebuild` from the stored games (timed), and each ladder is refitted (timed).

A season of these parameters already there is kept (run again: nothing is written). Prints the rows and times,
with the load average.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from bench import harness

ROOT = Path(__file__).resolve().parents[1]

HOUSE_PLAYERS = ("house:greedy", "house:random")
POOLED = ("seed", "start_seat", "termination", "score", "detail", "turns", "log_zlib")
CHUNK = 100


def marker(args: argparse.Namespace) -> str:
    sizes = "-".join(str(size) for size in args.team_sizes)
    return f"bench-coop-{args.bots}-{args.deals}-{sizes}-{args.seed}"


def play_pool(seed: str, deals: int, team_sizes: list[int]) -> dict[tuple[int, int, int], object]:
    """{(team size, house player, deal): the game as played} for every deal of the season, on every core."""
    from multiprocessing import Pool

    jobs = [
        (seed, size, player, first, min(CHUNK, deals - first))
        for size in team_sizes
        for player in range(len(HOUSE_PLAYERS))
        for first in range(0, deals, CHUNK)
    ]
    with Pool(os.cpu_count() or 1) as pool:
        return {key: log for batch in pool.starmap(_play, jobs) for key, log in batch}


def _play(seed: str, size: int, player: int, first: int, games: int) -> list:
    from bots.match import BotSpec, MatchSpec, run_match
    from league.arena.models import Game

    spec = MatchSpec(
        game="the-game",
        bots=[BotSpec(ref=HOUSE_PLAYERS[player], name=HOUSE_PLAYERS[player])] * size,
        games=games,
        seed=seed,
        players=size,
        duplicate=False,
        sandbox=False,
        first_deal=first,
    )
    played = []
    for game in run_match(spec).games:
        log, outcome = game.log, game.outcome
        row = {
            "seed": str(log["seed"]),
            "start_seat": log["start_seat"],
            "termination": outcome.termination.value,
            "score": outcome.score,
            "detail": outcome.detail or "",
            "turns": len(log["turns"]),
            "log_zlib": Game.compress_log(log),
        }
        played.append(((size, player, first + game.index), row))
    return played


def fill(args: argparse.Namespace) -> None:
    from django.contrib.auth import get_user_model
    from django.core.management.color import no_style
    from django.db import connection, transaction
    from django.db.models import Max, OuterRef, Subquery
    from django.utils import timezone

    from bench import scale_copy
    from league.arena.coop import challenges
    from league.arena.models import Bot, BotVersion, Game, GameSeat, Match, MatchEntry, Season

    rng = np.random.default_rng(args.seed)
    started = time.monotonic()
    season = challenges.open_season(
        Season(game="the-game", deals=args.deals, chunk=CHUNK, team_sizes=args.team_sizes, seed=marker(args))
    )
    pool = play_pool(season.seed, args.deals, args.team_sizes)
    print(f"pool: {len(pool)} genuine games of the season's deals in {time.monotonic() - started:.1f} s", flush=True)

    now = timezone.now()
    owners = list(get_user_model().objects.exclude(username="house").order_by("pk").values_list("pk", flat=True))
    with transaction.atomic():
        bots = Bot.objects.bulk_create(
            [
                Bot(owner_id=owners[k % len(owners)], name=f"coop-{args.seed}-{k}", game="the-game")
                for k in range(args.bots)
            ]
        )
        versions = BotVersion.objects.bulk_create(
            [
                BotVersion(
                    bot=bot,
                    number=1,
                    sha256=f"{rng.integers(2**63):016x}".ljust(64, "c"),
                    kind=BotVersion.Kind.PY,
                    filename="bot.py",
                    size=1000,
                    status=BotVersion.Status.ACTIVE,
                    validated_at=now,
                )
                for bot in bots
            ]
        )
        for bot, version in zip(bots, versions, strict=True):
            bot.active_version = version
        Bot.objects.bulk_update(bots, ["active_version"])
        planned = [
            (
                Match(
                    kind=Match.Kind.LADDER,
                    game="the-game",
                    games=min(CHUNK, args.deals - first),
                    players=size,
                    seed=season.seed,
                    first_deal=first,
                    duplicate=False,
                    status=Match.Status.DONE,
                    games_done=min(CHUNK, args.deals - first),
                    finished_at=now,
                ),
                [version],
            )
            for version in versions
            for size in args.team_sizes
            for first in range(0, args.deals, CHUNK)
        ]
        matches = Match.objects.bulk_create_with_entries(planned)
        first_game = (Game.objects.aggregate(top=Max("pk"))["top"] or 0) + 1
        first_seat = (GameSeat.objects.aggregate(top=Max("pk"))["top"] or 0) + 1
        columns: dict[str, list] = {name: [] for name in ("id", "match_id", "index", *POOLED)}
        seats: dict[str, list] = {"game_id": [], "seat": [], "version_id": []}
        for match, (_, (version,)) in zip(matches, planned, strict=True):
            played_by = rng.integers(len(HOUSE_PLAYERS), size=match.games)
            for index in range(match.games):
                game_id = first_game + len(columns["id"])
                row = pool[match.players, int(played_by[index]), match.first_deal + index]
                columns["id"].append(game_id)
                columns["match_id"].append(match.pk)
                columns["index"].append(index)
                for name in POOLED:
                    columns[name].append(row[name])
                for seat in range(match.players):
                    seats["game_id"].append(game_id)
                    seats["seat"].append(seat)
                    seats["version_id"].append(version.pk)
        games = len(columns["id"])
        seats["id"] = list(range(first_seat, first_seat + len(seats["seat"])))
        with connection.cursor() as cursor:
            scale_copy.copy_model(cursor, Game, columns | {"game": "the-game", "played_at": now}, games, connection)
            scale_copy.copy_model(cursor, GameSeat, seats, len(seats["seat"]), connection)
            for statement in connection.ops.sequence_reset_sql(no_style(), [Game, GameSeat]):
                cursor.execute(statement)
        chunk_matches = [match.pk for match in matches]
        MatchEntry.objects.filter(match_id__in=chunk_matches).update(
            games=Subquery(Match.objects.filter(pk=OuterRef("match_id")).values("games"))
        )
    print(
        f"stored {args.bots} bots, {len(matches)} matches, {games} games, {len(seats['seat'])} seats "
        f"in {time.monotonic() - started:.1f} s (load {harness.loadavg()})",
        flush=True,
    )
    aggregate(season)


def aggregate(season: object) -> None:
    """The season's co-op aggregates by the league's own rebuild, then a refit of each of its ladders (timed)."""
    from django.db import connection, transaction

    from league.arena.coop import rebuild as coop_rebuild
    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    begun = time.monotonic()
    with transaction.atomic():
        rebuilt = coop_rebuild.rebuild()
    print(
        f"coop_rebuild.rebuild: {rebuilt.deal_results} deal results, {rebuilt.standings} standings, "
        f"{rebuilt.pairs} pairs in {time.monotonic() - begun:.1f} s (load {harness.loadavg()})",
        flush=True,
    )
    for size in season.team_sizes:
        begun = time.monotonic()
        refits.refit(RatingPool.coop(season, size))
        print(
            f"refit of {RatingPool.coop(season, size)}: {time.monotonic() - begun:.1f} s (load {harness.loadavg()})",
            flush=True,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument(
        "--team-sizes", type=lambda text: sorted({int(size) for size in text.split(",")}), default=[1, 2]
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=args.database_url,
        DEBUG="false",
        SECRET_KEY="bench",
        LOG_LEVEL="WARNING",
        CELERY_TASK_ALWAYS_EAGER="false",
    )
    import django

    django.setup()
    from league.arena.models import DealResult, Season

    season = Season.objects.filter(seed=marker(args)).first()
    if season is not None and DealResult.objects.filter(season=season).exists():
        print(f"a season {marker(args)} is there already: nothing to fill")
        return
    if season is not None:
        print(f"a season {marker(args)} is there without its results (an interrupted fill): aggregating")
        aggregate(season)
        return
    print(
        f"filling a co-op season: {args.bots} bots, {args.deals} deals, team sizes {args.team_sizes} "
        f"(load {harness.loadavg()})"
    )
    print("clock: each step's wall time in this process (playing the log pool, COPY, the rebuild, each refit)")
    fill(args)


if __name__ == "__main__":
    main()
