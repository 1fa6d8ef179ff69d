"""`python manage.py demo`: the whole league on one machine, with nothing else to install or start.

Migrates the database (SQLite by default), creates a demo admin, registers the house bots as ladder
members, schedules a demo tournament and opens a small season of each co-op game (The Game, The Game Extreme)
whose first results show within a minute or two; a restart reuses both instead of adding more. Then it runs the
web server and a Celery worker (with the beat clock embedded) until Ctrl-C, which stops everything it started. The
server runs as in production (DEBUG off: the site's own error pages, static files served by WhiteNoise); both
processes log to files under the data folder, so the address, printed once the server answers, stays the last line.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from league.arena.coop import challenges
from league.arena.models import COOP_GAMES, FACE_TO_FACE, Season, Tournament, TournamentEntry
from league.arena.ops.workers import worker_command
from league.arena.uploads.house import ensure_house_bots

DEMO_TOURNAMENT = "Demo: house bots round robin"
# A demo season: few deals in small matches, so the house bots' first co-op results show within a minute or two.
DEMO_SEASON = {"deals": 60, "chunk": 5, "team_sizes": [1, 2, 3]}
SERVER_START_SECONDS = 120


class ServerDidNotStart(RuntimeError):
    """The web server stopped, or never answered, before the demo could print its address."""


class Command(BaseCommand):
    help = "Run the league on this machine: web server, Celery worker and clock, demo admin and tournament."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address the web server listens on")
        parser.add_argument("--port", type=int, default=8000, help="port the web server listens on")
        parser.add_argument("--workers", type=int, default=2, help="worker processes that play matches")
        parser.add_argument("--admin-password", default=os.environ.get("ARENA_DEMO_PASSWORD", "arena-demo"))
        parser.add_argument("--games", type=int, default=20, help="games per pairing in the demo tournament")

    def handle(self, *args: Any, **options: Any) -> None:
        self._ensure_sandbox()
        call_command("migrate", interactive=False, verbosity=0)
        tournament, seasons = prepare(options["admin_password"], options["games"])
        logs = Path(settings.DATA_DIR) / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        children = self._start(options, logs)
        url = f"http://{_browsable(options['host'])}:{options['port']}/"
        try:
            _wait_until_answering(url, children[1], SERVER_START_SECONDS)
        except KeyboardInterrupt:
            _stop_all(children)
            self.stdout.write("Stopped.")
            return
        except ServerDidNotStart as error:
            self.stderr.write(f"{error}; see {logs / 'web.log'}")
            _stop_all(children)
            raise SystemExit(1) from None
        self.stdout.write(
            f"  logs: {logs / 'worker.log'} (matches, ratings), {logs / 'web.log'} (requests)\n"
            + f"  database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
            + f"broker: {settings.CELERY_BROKER_URL.split('://')[0]}\n"
            + f"  demo tournament: {url}tournaments/{tournament.pk}/ (starts by itself)\n"
            + "".join(
                f"  co-op season: {url}ladder/{season.game}/ (the house bots play it now)\n" for season in seasons
            )
            + f"  admin: {url}admin/  user admin, password {options['admin_password']}\n"
            + self.style.SUCCESS(f"The Game Arena runs at {url}")
            + "  (Ctrl-C stops it)\n"
        )
        self._wait(children)

    def _ensure_sandbox(self) -> None:
        """Uploaded bots run under bubblewrap: install it on a fresh Debian machine, or say what is missing."""
        if not settings.ARENA_SANDBOX or shutil.which("bwrap"):
            return
        if os.geteuid() == 0 and shutil.which("apt-get"):
            self.stdout.write("Installing bubblewrap, the sandbox for uploaded bots (apt-get install bubblewrap)...")
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            if subprocess.run(["apt-get", "install", "-y", "-qq", "bubblewrap"], env=env, **quiet).returncode:
                subprocess.run(["apt-get", "update", "-qq"], env=env, **quiet)
                subprocess.run(["apt-get", "install", "-y", "-qq", "bubblewrap"], env=env, **quiet)
        if not shutil.which("bwrap"):
            self.stderr.write(
                "WARNING: bubblewrap (bwrap) is not installed, so uploaded bots cannot be validated or played; "
                "install it with `apt-get install bubblewrap`. House bots play as usual."
            )

    def _start(self, options: dict[str, Any], logs: Path) -> list[subprocess.Popen]:
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        worker = worker_command(options["workers"], "--beat", "--schedule", settings.CELERY_BEAT_SCHEDULE_FILENAME)
        web = [sys.executable, manage, "runserver", f"{options['host']}:{options['port']}", "--noreload"]
        env = _production_like_env(options["host"])
        children = []
        for command, name in ((worker, "worker"), (web, "web")):
            with open(logs / f"{name}.log", "ab") as log:
                # Own sessions: Ctrl-C reaches only this command, which then stops each child's whole group.
                children.append(
                    subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
                )
        return children

    def _wait(self, children: list[subprocess.Popen]) -> None:
        def stop(signum: int, frame: Any) -> None:
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)  # also when started with SIGINT ignored (e.g. in the background)
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
            self.stderr.write("a server process stopped by itself; stopping the others")
        except KeyboardInterrupt:
            self.stdout.write("\nStopping…")
        finally:
            # A second Ctrl-C must not cut the clean-up short and leave processes behind.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            _stop_all(children)
        self.stdout.write("Stopped.")


def prepare(admin_password: str, games: int) -> tuple[Tournament, list[Season]]:
    """The demo's league: its admin, the house bots, its tournament and a current season of each co-op game, each
    made once and reused on every later start."""
    users = get_user_model().objects
    if not users.filter(username="admin").exists():
        users.create_superuser("admin", email="", password=admin_password)
    house = [v for v in ensure_house_bots() if v.bot.game == FACE_TO_FACE]
    return _tournament(house, games), [_season(game) for game in COOP_GAMES]


def _tournament(house: list, games: int) -> Tournament:
    """The demo tournament: the one made by an earlier start (finished or not), else a new one."""
    tournament = Tournament.objects.filter(name=DEMO_TOURNAMENT).order_by("-pk").first()
    if tournament is None:
        tournament = Tournament.objects.create(
            name=DEMO_TOURNAMENT,
            game=FACE_TO_FACE,
            format=Tournament.Format.ROUND_ROBIN,
            games_per_pairing=games,
            scheduled_at=timezone.now() + timedelta(seconds=15),
        )
        TournamentEntry.objects.bulk_create(
            [TournamentEntry(tournament=tournament, bot=version.bot) for version in house]
        )
    return tournament


def _season(game: str) -> Season:
    """The co-op game's current season (an earlier start's, or one an operator opened), else a small demo one."""
    return challenges.current_season(game) or challenges.start_season(game, **DEMO_SEASON)


def _production_like_env(host: str) -> dict[str, str]:
    """The children's environment: DEBUG off (friendly error pages) unless the caller chose otherwise."""
    env = dict(os.environ)
    env.setdefault("DEBUG", "false")
    if env["DEBUG"].lower() in ("0", "false", "no", "off"):
        env.setdefault("SECRET_KEY", _demo_secret_key())
        env.setdefault("SECURE_COOKIES", "false")  # the demo serves plain http: secure cookies would never return
        env.setdefault("ALLOWED_HOSTS", ",".join(["localhost", "127.0.0.1", "[::1]", host]))
    return env


def _demo_secret_key() -> str:
    """A key made on first use and kept in the data folder, so sessions survive a restart of the demo."""
    path = Path(settings.DATA_DIR) / "demo-secret-key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def _browsable(host: str) -> str:
    """An address a browser on this machine can open, for a server listening on `host`."""
    return {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)


def _wait_until_answering(url: str, web: subprocess.Popen, timeout: float) -> None:
    """Poll until the web server answers any HTTP request; raise ServerDidNotStart if it dies or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if web.poll() is not None:
            raise ServerDidNotStart(f"the web server stopped (exit {web.returncode})")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return  # it answered, if only with an error page
        except OSError:
            time.sleep(0.25)
    raise ServerDidNotStart(f"the web server did not answer at {url} within {timeout:.0f} s")


def _stop_all(children: list[subprocess.Popen]) -> None:
    worker, web = children
    # SIGQUIT is Celery's cold shutdown: it does not wait for running matches, which the
    # sweeper hands out again after their lease; a warm one could wait for minutes.
    _signal_group(worker, signal.SIGQUIT, group=False)
    _signal_group(web, signal.SIGTERM)
    deadline = time.monotonic() + 10
    for child in children:
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        _signal_group(child, signal.SIGKILL)  # whatever of its group is left: pool processes, bots
        child.wait()


def _signal_group(child: subprocess.Popen, signum: int, group: bool = True) -> None:
    try:
        if group:
            os.killpg(child.pid, signum)
        else:
            child.send_signal(signum)
    except ProcessLookupError:
        pass
