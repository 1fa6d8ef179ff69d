"""Fixtures for the league tests: a Django test database (SQLite by default, PostgreSQL via DATABASE_URL)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
# A private data folder (SQLite test database, filesystem broker) and queue: no demo or other run interferes.
_OWN_DATA_DIR = None if "ARENA_DATA_DIR" in os.environ else tempfile.mkdtemp(prefix="arena-test-")
if _OWN_DATA_DIR:
    os.environ["ARENA_DATA_DIR"] = _OWN_DATA_DIR
os.environ.setdefault("ARENA_QUEUE", f"arena-test-{os.getpid()}")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "false")

import django  # noqa: E402

django.setup()

import pytest  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from league.arena.ops.workers import worker_command  # noqa: E402
from tests.league.sessions import sessions_left  # noqa: E402


def pytest_xdist_setupnodes(config, specs):
    """Test processes make their own data folder and queue, as under the README's command: this pytest process
    made these because test files of this folder were named on its command line, and test processes sharing them
    (and the page-cache tokens in the folder) would clear each other's. Unset, pytest-django leaves Django to
    this file in each test process, which then sets the variables afresh."""
    if _OWN_DATA_DIR:
        for name in ("ARENA_DATA_DIR", "ARENA_QUEUE", "DJANGO_SETTINGS_MODULE"):
            os.environ.pop(name, None)


def pytest_sessionfinish(session, exitstatus):
    if _OWN_DATA_DIR:
        import shutil

        shutil.rmtree(_OWN_DATA_DIR, ignore_errors=True)


@pytest.fixture(autouse=True, scope="module")
def _no_session_left_behind(django_db_blocker):
    """After each test file, no other session than the test's own is open on its PostgreSQL test database
    (tests/league/sessions.py)."""
    yield
    name = connection.settings_dict["NAME"]
    if connection.vendor != "postgresql" or not name.startswith("test_"):
        return  # SQLite, or no test of the file used the database
    with django_db_blocker.unblock():
        left = sessions_left()
    if left:
        pytest.fail(f"sessions left open on {name} (pid, state, last query): {left}")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, settings):
    settings.ARENA_CACHE_DIR = tmp_path / "cache"
    settings.ARENA_SANDBOX = False
    settings.ARENA_VALIDATION_GAMES = 2  # a short validation (the suite's time); test_validation plays the league's
    settings.ARENA_VALIDATION_OPPONENTS = ["house:random"]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_page_cache():
    """Pages keep fragments in the cache across requests (league/arena/lib/caching.py): no test sees another's."""
    from django.core.cache import caches

    for cache in caches.all(initialized_only=False):
        cache.clear()


@pytest.fixture(autouse=True)
def _fresh_refits():
    """A refit starts where this process's last one ended (ladder/refits.py): no test starts from another's."""
    from league.arena.ladder import refits

    refits.forget_last_fits()


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="correct horse battery")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="correct horse battery")


@pytest.fixture
def sent(monkeypatch):
    """Record the Celery tasks queued (short name and arguments) instead of sending them to a broker."""
    from league.arena import queue

    calls = SentTasks()

    def send(name: str, args: tuple, countdown: float | None, priority: int | None = None) -> None:
        calls.append((name.rpartition(".")[2], args))
        calls.options.append({"countdown": countdown, "priority": priority})

    monkeypatch.setattr(queue, "_send", send)
    return calls


class SentTasks(list):
    """The tasks sent, as (short name, arguments); `options` holds each one's countdown and priority, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.options: list[dict] = []

    def clear(self) -> None:
        super().clear()
        self.options.clear()


@pytest.fixture
def make_version(db):
    """An active uploaded bot version: make_version(owner, "name")."""
    import hashlib

    from league.arena.models import Bot, BotUpload, BotVersion

    def make(owner, name, game="face-to-face", source=None, status="active"):
        bot, _ = Bot.objects.get_or_create(owner=owner, name=name, defaults={"game": game})
        content = source or f"# {name} {bot.next_version_number()}\ndef play(observation):\n    return []\n".encode()
        version = BotVersion.objects.create(
            bot=bot,
            number=bot.next_version_number(),
            sha256=hashlib.sha256(content).hexdigest(),
            kind="py",
            filename="bot.py",
            size=len(content),
            status=status,
        )
        BotUpload.objects.create(version=version, content=content)
        bot.refresh_active_version()
        return version

    return make


def _played_game(index: int, winner: int | None, seat_bots=(0, 1)):
    """A finished Face to Face game as the runner reports it (the log is a stub: these games are never replayed)."""
    import games
    from bots.match import GameResult

    termination = games.Termination.STUCK
    outcome = games.Outcome(termination, winner=winner, seat=None if winner is None else 1 - winner)
    log = {"seed": f"s{index}", "start_seat": 0, "turns": []}
    return GameResult.from_log(index=index, deal=index, log=log, outcome=outcome, seat_bots=list(seat_bots))


@pytest.fixture
def played_game():
    """played_game(index, winner_seat): a finished Face to Face game as the runner reports it."""
    return _played_game


@pytest.fixture
def record_games(db):
    """Store finished games between two versions through the worker's store path: record_games(a, b, [0, 1, ...]).

    Winners are seats; entry 0 (`a`) sits in seat 0 of every game.
    """
    from django.db import transaction
    from django.utils import timezone

    from league.arena.models import Match
    from league.arena.play import results

    def record(a, b, winners, tournament=None, kind="ladder", rated=True):
        with transaction.atomic():
            match = Match.objects.create_with_entries(
                [a, b],
                kind=kind,
                game="face-to-face",
                games=len(winners),
                seed="s",
                tournament=tournament,
                rated=rated,
                status=Match.Status.DONE,
                games_done=len(winners),
            )
            played = [_played_game(index, winner) for index, winner in enumerate(winners)]
            results.save_games(match, [a, b], played, {}, timezone.now())
        return match

    return record


# --- Real Celery worker processes, for the end-to-end and browser tests ---------------------------

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(tmp_path: Path, name: str, beat: bool, **env: str) -> subprocess.Popen:
    """A Celery worker process (two pool processes) on this test database and the configured broker."""
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "ARENA_LADDER_MAX_PENDING": "0",  # only what a test queues is played (unless `env` says otherwise)
        "ARENA_CACHE_DIR": str(tmp_path / f"cache-{name}"),
        # a short validation (the suite's time); test_validation plays the league's own
        "ARENA_VALIDATION_GAMES": "2",
        "ARENA_VALIDATION_OPPONENTS": "house:random",
        **env,
    }
    queues = ",".join(queue.name for queue in settings.CELERY_TASK_QUEUES)  # matches and validations
    command = worker_command(2, "--hostname", f"{name}@%h", "--queues", queues)
    if beat:
        command += ["--beat", "--schedule", str(tmp_path / f"beat-{name}")]
    log = open(tmp_path / f"worker-{name}.log", "wb")
    process = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    log.close()
    return process


def stop_worker(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGQUIT)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the pool processes and any bot they left
    except ProcessLookupError:
        pass
    process.wait()


@pytest.fixture
def workers(transactional_db, tmp_path) -> Iterator[Callable[..., subprocess.Popen]]:
    started: list[subprocess.Popen] = []

    def start(name: str = "w1", beat: bool = True, **env: str) -> subprocess.Popen:
        started.append(start_worker(tmp_path, name, beat, **env))
        return started[-1]

    yield start
    for process in started:
        stop_worker(process)
    for log in sorted(tmp_path.glob("worker-*.log")):
        print(log.name, log.read_text(errors="replace")[-4000:])  # shown only if the test failed


def _wait_for(what: str, check: Callable[[], bool], process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        assert process.poll() is None, f"the worker died (exit {process.returncode}) while waiting for {what}"
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture
def wait_for() -> Callable[..., None]:
    """wait_for(what, check, worker_process, timeout=180): poll until check() holds, failing if the worker dies."""
    return _wait_for
