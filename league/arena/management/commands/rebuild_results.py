"""`python manage.py rebuild_results`: recompute the result aggregates from the stored games, then refit.

The aggregates (per-entry results on match entries, per-pair rated results) are kept as games are stored; this
rebuilds them from scratch, e.g. after games were loaded in bulk or the aggregates were damaged.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from league.arena import refits, results
from league.arena.models import COMPETITIVE_GAMES


class Command(BaseCommand):
    help = "Recompute match-entry and per-pair results from the stored games, then refit the ratings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-refit", action="store_true", help="leave the ratings as they are")

    def handle(self, *args: Any, **options: Any) -> None:
        entries, pairs = results.rebuild()
        self.stdout.write(f"rebuilt results of {entries} match entries and {pairs} pairs of versions")
        if options["no_refit"]:
            return
        for game in sorted(COMPETITIVE_GAMES):
            if refits.refit(game):
                self.stdout.write(f"refit the ratings of {game}")
            else:
                self.stdout.write(f"{game}: a running refit holds the claim; it refits once more when done")
