"""Recomputing the co-op challenge aggregates from the stored games, exactly as `coop_results.record` keeps them.

A challenge game is a game of a co-op ladder match (no tournament) whose seed is a season's seed, of that season's
game. Its deal is the match's first deal plus the game's index (deals past the season's end are not results), its
version the match's entry 0, its team size the match's players. When one version has two games of the same deal
and team size (a chunk stored twice), the first stored game (lowest id) is the result, as `record` keeps the first.

A pair's `last_played` is when its last comparison was stored: for each shared deal the later of the two games,
since `record` compares a result with the ones stored before it, stamped with its own game's time.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.db import connection, transaction
from django.db.models import Count

from league.arena.models import CARDS_IN_DECK, COOP_GAMES


class Rebuilt(NamedTuple):
    deal_results: int
    standings: int
    pairs: int


@transaction.atomic
def rebuild(apps: Apps = global_apps) -> Rebuilt:
    """Replace every season's deal results, standings and duplicate comparisons with what the games say (all or
    nothing); the caller refits the ratings afterwards (`rebuild_results`)."""
    for name in ("DealPair", "SeasonStanding", "DealResult"):
        apps.get_model("arena", name).objects.all().delete()
    deal_results = _rebuild_deal_results(apps)
    return Rebuilt(deal_results, _rebuild_standings(apps), _rebuild_pairs(apps))


def _rebuild_deal_results(apps: Apps) -> int:
    Season, Game, DealResult = (apps.get_model("arena", name) for name in ("Season", "Game", "DealResult"))
    seasons = {
        seed: (pk, game, deals) for pk, seed, game, deals in Season.objects.values_list("pk", "seed", "game", "deals")
    }
    games = (
        Game.objects.filter(
            game__in=COOP_GAMES,
            match__kind="ladder",
            match__tournament__isnull=True,
            match__seed__in=list(seasons),
            match__entries__index=0,
        )
        .values_list(
            "pk",
            "game",
            "match__seed",
            "match__players",
            "match__first_deal",
            "index",
            "score",
            "match__entries__version_id",
        )
        .order_by("pk")
    )
    seen: set[tuple[int, int, int, int]] = set()
    batch: list = []
    written = 0
    for pk, game, seed, players, first_deal, index, score, version in games.iterator(chunk_size=10_000):
        season, season_game, deals = seasons[seed]
        deal, players = first_deal + index, players or 1
        key = (season, players, version, deal)
        if season_game != game or deal >= deals or key in seen:
            continue
        seen.add(key)
        batch.append(
            DealResult(season_id=season, players=players, version_id=version, deal=deal, cards_left=score, game_id=pk)
        )
        if len(batch) >= 5_000:
            written += len(DealResult.objects.bulk_create(batch))
            batch = []
    written += len(DealResult.objects.bulk_create(batch))
    return written


def _rebuild_standings(apps: Apps) -> int:
    DealResult, SeasonStanding = apps.get_model("arena", "DealResult"), apps.get_model("arena", "SeasonStanding")
    histograms: dict[tuple[int, int, int], list[int]] = defaultdict(lambda: [0] * (CARDS_IN_DECK + 1))
    grouped = (
        DealResult.objects.values_list("season_id", "players", "version_id", "cards_left")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for season, players, version, left, n in grouped.iterator(chunk_size=10_000):
        histograms[season, players, version][left] += n
    rows = [
        SeasonStanding(
            season_id=season,
            players=players,
            version_id=version,
            deals=sum(histogram),
            wins=histogram[0],
            cards_left=sum(left * n for left, n in enumerate(histogram)),
            histogram=histogram,
        )
        for (season, players, version), histogram in sorted(histograms.items())
    ]
    SeasonStanding.objects.bulk_create(rows, batch_size=5_000)
    return len(rows)


def _rebuild_pairs(apps: Apps) -> int:
    """Every pair of versions on the same deals, compared in one INSERT ... SELECT (PostgreSQL and SQLite alike)."""
    quote = connection.ops.quote_name
    pairs, results, games = (
        quote(apps.get_model("arena", name)._meta.db_table) for name in ("DealPair", "DealResult", "Game")
    )
    sql = f"""
        INSERT INTO {pairs} (season_id, players, first_id, second_id, first_wins, second_wins, draws, last_played)
        SELECT a.season_id, a.players, a.version_id, b.version_id,
               SUM(CASE WHEN a.cards_left < b.cards_left THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.cards_left > b.cards_left THEN 1 ELSE 0 END),
               SUM(CASE WHEN a.cards_left = b.cards_left THEN 1 ELSE 0 END),
               MAX(CASE WHEN ga.played_at > gb.played_at THEN ga.played_at ELSE gb.played_at END)
        FROM {results} a
        JOIN {results} b
          ON b.season_id = a.season_id AND b.players = a.players AND b.deal = a.deal AND b.version_id > a.version_id
        JOIN {games} ga ON ga.id = a.game_id
        JOIN {games} gb ON gb.id = b.game_id
        GROUP BY a.season_id, a.players, a.version_id, b.version_id
    """
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The deal results were just written in this transaction: without fresh statistics the planner takes
            # the table for empty and probes the games' index once per compared pair of results (millions).
            cursor.execute(f"ANALYZE {results}")
        cursor.execute(sql)
        return cursor.rowcount
