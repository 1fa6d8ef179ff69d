"""Fixtures for the league tests: a Django test database (SQLite by default, PostgreSQL via DATABASE_URL)."""

from __future__ import annotations

import os
import tempfile

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
from django.contrib.auth import get_user_model  # noqa: E402


def pytest_sessionfinish(session, exitstatus):
    if _OWN_DATA_DIR:
        import shutil

        shutil.rmtree(_OWN_DATA_DIR, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, settings):
    settings.ARENA_CACHE_DIR = tmp_path / "cache"
    settings.ARENA_SANDBOX = False
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="correct horse battery")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="correct horse battery")


@pytest.fixture
def sent(monkeypatch):
    """Record the Celery tasks queued (by name and arguments) instead of sending them to a broker."""
    from league.arena import tasks

    calls: list[tuple[str, tuple]] = []
    for name in ("play_match", "refit_ratings", "finish_tournament", "start_tournament"):
        task = getattr(tasks, name)
        monkeypatch.setattr(task, "delay", lambda *args, _n=name: calls.append((_n, args)))
        monkeypatch.setattr(task, "apply_async", lambda args=(), _n=name, **kw: calls.append((_n, tuple(args))))
    return calls


@pytest.fixture
def make_version(db):
    """An active uploaded bot version: make_version(owner, "name")."""
    import hashlib

    from league.arena.models import Bot, BotVersion

    def make(owner, name, game="face-to-face", source=None, status="active"):
        bot, _ = Bot.objects.get_or_create(owner=owner, name=name, defaults={"game": game})
        content = source or f"# {name} {bot.next_version_number()}\ndef play(observation):\n    return []\n".encode()
        return BotVersion.objects.create(
            bot=bot,
            number=bot.next_version_number(),
            sha256=hashlib.sha256(content).hexdigest(),
            kind="py",
            filename="bot.py",
            size=len(content),
            content=content,
            status=status,
        )

    return make


@pytest.fixture
def record_games(db):
    """Store finished games between two versions as if a worker had played them: record_games(a, b, [0, 1, ...])."""
    from league.arena.models import Game, GameSeat, Match, MatchEntry

    def record(a, b, winners, tournament=None, kind="ladder", rated=True):
        match = Match.objects.create(
            kind=kind,
            game="face-to-face",
            games=len(winners),
            seed="s",
            tournament=tournament,
            rated=rated,
            status=Match.Status.DONE,
            games_done=len(winners),
        )
        MatchEntry.objects.bulk_create(
            [MatchEntry(match=match, index=0, version=a), MatchEntry(match=match, index=1, version=b)]
        )
        for index, winner in enumerate(winners):
            game = Game.objects.create(
                match=match,
                index=index,
                game="face-to-face",
                seed=f"s{index}",
                start_seat=0,
                termination="stuck",
                winner_seat=winner,
                log_zlib=Game.compress_log({}),
            )
            GameSeat.objects.bulk_create(
                [
                    GameSeat(game=game, seat=0, version=a, points=1.0 if winner == 0 else 0.0),
                    GameSeat(game=game, seat=1, version=b, points=1.0 if winner == 1 else 0.0),
                ]
            )
        return match

    return record
