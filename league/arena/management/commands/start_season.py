"""`python manage.py start_season the-game`: open a new challenge season of a co-op game with fresh deals.

The old season keeps every result; its matches not yet started are cancelled, and the scheduler queues the new
season's deals for every ladder bot.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from league.arena.coop import challenges
from league.arena.models import COOP_GAMES


def team_sizes(text: str) -> list[int]:
    try:
        return [int(size) for size in text.split(",") if size.strip()]
    except ValueError:
        raise CommandError(f"--team-sizes {text!r}: give numbers from 1 to 5 separated by commas") from None


class Command(BaseCommand):
    help = "Start a new season of a co-op game's challenge ladder with fresh deals."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", choices=COOP_GAMES)
        parser.add_argument("--deals", type=int, default=1000, help="deals in the season (default 1000)")
        parser.add_argument("--chunk", type=int, default=100, help="deals per match (default 100)")
        parser.add_argument("--team-sizes", type=team_sizes, help="e.g. 1,2,3 (default: ARENA_COOP_TEAM_SIZES)")
        parser.add_argument("--seed", help="the season's seed (default: a fresh random one)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            season = challenges.start_season(
                options["game"], options["deals"], options["chunk"], options["team_sizes"], options["seed"]
            )
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        self.stdout.write(
            f"started {season}: {season.deals} deals from seed {season.seed}, "
            f"{season.chunk} per match, team sizes {', '.join(map(str, season.team_sizes))}"
        )
