"""`python manage.py rebuild_results`: recompute the result aggregates from the stored games, then refit.

The aggregates (per-entry results on match entries, per-pair rated results, per-version results by seat and forfeits
by kind, and the co-op challenge ladders' deal results, standings and duplicate comparisons) are kept as games are
stored; this rebuilds them from scratch, e.g. after games were loaded in bulk or the aggregates were damaged.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from league.arena.coop import rebuild as coop_rebuild
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import COMPETITIVE_GAMES, Season
from league.arena.play import results


class Command(BaseCommand):
    help = (
        "Recompute match-entry, per-pair, per-seat, forfeit and co-op challenge results from the stored games, "
        "then refit the ratings."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-refit", action="store_true", help="leave the ratings as they are")

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            rebuilt, coop = results.rebuild(), coop_rebuild.rebuild()
        self.stdout.write(
            f"rebuilt results of {rebuilt.entries} match entries, {rebuilt.pairs} pairs of versions and "
            f"{rebuilt.seats} version seats; {rebuilt.forfeits} forfeit counts"
        )
        self.stdout.write(
            f"rebuilt the co-op challenges: {coop.deal_results} deal results, {coop.standings} "
            f"standings, {coop.pairs} pairs of versions compared"
        )
        if options["no_refit"]:
            return
        pools = [RatingPool.ladder(game) for game in sorted(COMPETITIVE_GAMES)] + [
            RatingPool.coop(season, players)
            for season in Season.objects.order_by("pk")
            for players in season.team_sizes
        ]
        for pool in pools:
            if refits.refit(pool):
                self.stdout.write(f"refit the ratings of {pool}")
            else:
                self.stdout.write(f"{pool}: a running refit holds the claim; it refits once more when done")
