"""Recomputing a co-op season's results from the stored game logs alone, independently of the league's aggregates."""

from __future__ import annotations

import json
import statistics
import zlib
from collections import defaultdict
from itertools import combinations

import games
from league.arena.models import Game, Match, Season
from league.arena.play import matches


def replayed_results(season: Season, players: int) -> dict[int, dict[int, int]]:
    """{version id: {deal: cards left}} from replaying every stored game of the season's `players`-seat ladder."""
    prefix = f"{season.seed}:"
    results: dict[int, dict[int, int]] = defaultdict(dict)
    stored = Game.objects.filter(game=season.game, seed__startswith=prefix, match__players=players)
    for game in stored.prefetch_related("seats"):
        log = json.loads(zlib.decompress(bytes(game.log_zlib)))
        outcome = games.replay(log)
        assert log["seed"] == game.seed and len(log["seats"]) == players
        deal = int(game.seed[len(prefix) :])
        (version,) = {seat.version_id for seat in game.seats.all()}
        assert deal not in results[version], f"deal {deal} stored twice for version {version}"
        results[version][deal] = outcome.score
    return results


def figures(cards: list[int]) -> tuple[int, int, float, float]:
    """(deals, wins, mean, median) of a list of cards left."""
    return len(cards), sum(1 for c in cards if c == 0), statistics.fmean(cards), statistics.median(cards)


def comparisons(results: dict[int, dict[int, int]]) -> dict[tuple[int, int], tuple[int, int, int]]:
    """{(lower id, higher id): (lower's wins, higher's wins, draws)} over the deals both played."""
    table = {}
    for first, second in combinations(sorted(results), 2):
        shared = results[first].keys() & results[second].keys()
        a = sum(1 for d in shared if results[first][d] < results[second][d])
        b = sum(1 for d in shared if results[first][d] > results[second][d])
        if shared:
            table[first, second] = (a, b, len(shared) - a - b)
    return table


def play_queued(game: str = "the-game") -> int:
    """Play every queued match of `game` in this process; returns how many were stored."""
    played = 0
    for pk in Match.objects.filter(game=game, status=Match.Status.QUEUED).order_by("pk").values_list("pk", flat=True):
        played += matches.play(pk, worker="test")
    return played


def record_coop(
    season: Season, version, players: int, cards: list[int], first_deal: int = 0, played_at=None, tournament=None
) -> Match:
    """Store a challenge chunk of `version` (a self-play team of `players`) whose deals ended with `cards` left,
    through the worker's storing path (games, aggregates, co-op results) but without playing: stub logs. With a
    `tournament`, a tournament match on the season's deals instead (no challenge result)."""
    from django.db import transaction
    from django.utils import timezone

    from bots.match import GameResult
    from league.arena.coop import results as coop_results
    from league.arena.play import results

    played = [
        GameResult.from_log(
            index=index,
            deal=first_deal + index,
            log={"seed": f"{season.seed}:{first_deal + index}", "start_seat": 0, "turns": []},
            outcome=games.Outcome(games.Termination.STUCK if left else games.Termination.ALL_CARDS_PLAYED, score=left),
            seat_bots=list(range(players)),
        )
        for index, left in enumerate(cards)
    ]
    with transaction.atomic():
        match = Match.objects.create_with_entries(
            [version],
            kind=Match.Kind.TOURNAMENT if tournament else Match.Kind.LADDER,
            tournament=tournament,
            game=season.game,
            games=len(cards),
            players=players,
            seed=season.seed,
            first_deal=first_deal,
            duplicate=False,
            status=Match.Status.DONE,
            games_done=len(cards),
        )
        stored = results.save_games(match, [version] * players, played, {}, played_at or timezone.now())
        coop_results.record(match, [version], stored)
    return match
