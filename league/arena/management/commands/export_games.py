"""`python manage.py export_games`: write the public games of every finished month not yet archived.

The beat runs the same export every ARENA_EXPORT_INTERVAL seconds (league.arena.tasks.export_games, replaying on
the worker's own process: the matches beside it keep the other CPUs); a month is
written once, so running it again writes nothing new. The archives are listed at /data/ and /api/archives/.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.archive import default_jobs
from league.arena.play import archives


class Command(BaseCommand):
    help = "Write each finished month's public games as compressed JSON-lines archives (per game and month)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--jobs", type=int, default=default_jobs(), help="processes replaying the logs (default: every CPU)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["jobs"] < 1:
            raise CommandError(f"--jobs {options['jobs']}: at least one process replays the logs")
        result = archives.export(jobs=options["jobs"])
        for archive in result.archives:
            self.stdout.write(f"{archive.name}: {archive.games} games, {archive.bytes} bytes, sha256 {archive.sha256}")
        through = archives.exported_through() or "nothing yet"
        if not result.archives:
            self.stdout.write(f"nothing new to export (finished months exported through {through})")
        if result.skipped:
            self.stderr.write(f"{result.skipped} games left out: their stored logs no longer replay")
        self.stdout.write(f"archives in {archives.folder()}, exported through {through}")
