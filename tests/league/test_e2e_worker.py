"""End to end with a real Celery worker process: uploads, validation, a scheduled tournament, ratings.

Runs against whatever DATABASE_URL and CELERY_BROKER_URL say: PostgreSQL and Redis in CI, the embedded
SQLite and filesystem broker otherwise. The worker plays uploaded bots in the sandbox.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse
from django.utils import timezone

import bots.house
from league.arena import ladder
from league.arena.house import house_version
from league.arena.models import (
    Bot,
    BotVersion,
    Match,
    MatchEntry,
    Rating,
    RatingFit,
    Tournament,
    TournamentEntry,
)
from league.arena.tasks import play_match

ROOT = Path(__file__).resolve().parents[2]
HOUSE = Path(bots.house.__file__).parent
BROKEN = b"def play(observation):\n    raise KeyError('no such pile: p9.up')\n"


def database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(tmp_path: Path, name: str, beat: bool, **env: str) -> subprocess.Popen:
    """A Celery worker process (two pool processes) on this test database and the configured broker."""
    environment = dict(
        os.environ,
        DATABASE_URL=database_url(),
        ARENA_LADDER_MAX_PENDING="0",  # only what a test queues is played, so results are steady
        ARENA_CACHE_DIR=str(tmp_path / f"cache-{name}"),
        **env,
    )
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "league",
        "worker",
        "--concurrency",
        "2",
        "--hostname",
        f"{name}@%h",
        "--queues",
        settings.CELERY_TASK_DEFAULT_QUEUE,
        "--without-mingle",
        "--without-gossip",
        "--loglevel",
        "INFO",
    ]
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


def wait_for(what: str, check: Callable[[], bool], process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        assert process.poll() is None, f"the worker died (exit {process.returncode}) while waiting for {what}"
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


def upload(client, name: str, content: bytes) -> Bot:
    response = client.post(
        reverse("new-bot"),
        {"name": name, "game": "face-to-face", "description": "", "file": SimpleUploadedFile("bot.py", content)},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    return Bot.objects.get(name=name)


def test_uploads_are_validated_and_a_scheduled_tournament_is_played(client, django_user_model, workers):
    worker = workers("w1", ARENA_VALIDATION_GAMES="2")
    alice = django_user_model.objects.create_user("alice", password="correct horse battery")
    client.force_login(alice)
    greedy = upload(client, "greedy-copy", (HOUSE / "greedy.py").read_bytes())
    rnd = upload(client, "random-copy", (HOUSE / "random_bot.py").read_bytes())
    broken = upload(client, "broken", BROKEN)

    def validated() -> bool:
        return not BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).exists()

    wait_for("the three validations", validated, worker)
    assert greedy.newest_active_version() is not None and rnd.newest_active_version() is not None
    failed = broken.versions.get()
    assert failed.status == "failed"
    assert failed.failure_reason.startswith("game 1: crash: ") and "no such pile: p9.up" in failed.failure_reason
    page = client.get(reverse("bot", args=[broken.pk])).content.decode()
    assert "no such pile: p9.up" in page  # the owner sees why

    house = house_version("house:greedy")
    tournament = Tournament.objects.create(
        name="E2E Cup", games_per_pairing=4, scheduled_at=timezone.now() + timedelta(seconds=1)
    )
    for bot in (greedy, rnd, broken, house.bot):
        TournamentEntry.objects.create(tournament=tournament, bot=bot)

    def finished() -> bool:
        tournament.refresh_from_db()
        return tournament.status == "finished"

    wait_for("the tournament", finished, worker)
    assert tournament.matches.filter(status="done").count() == 3  # broken was left out: 3 bots, 3 pairings
    assert tournament.progress() == (12, 12)
    wait_for(
        "the ratings refit",
        lambda: RatingFit.objects.filter(game="face-to-face", games=12).exists(),
        worker,
        timeout=60,
    )

    standings = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "12 of 12 games played" in standings and "Left out" in standings
    for bot in (greedy, rnd, house.bot):
        assert bot.full_name in standings

    # A refit from the stored games reproduces the ratings the leaderboard shows.
    refit = ladder.fit(ladder.rated_games("face-to-face")[0])
    shown = {r.version_id: r for r in Rating.objects.filter(game="face-to-face")}
    assert set(refit) == set(shown) == {greedy.newest_active_version().pk, rnd.newest_active_version().pk, house.pk}
    board = client.get(reverse("ladder", args=["face-to-face"])).content.decode()
    for pk, rating in refit.items():
        assert shown[pk].elo == pytest.approx(rating.elo, abs=1e-6)
        assert (shown[pk].games, shown[pk].wins, shown[pk].losses) == (rating.games, rating.wins, rating.losses)
        assert f"{rating.elo:.0f} ± {(rating.high - rating.low) / 2:.0f}" in board
    assert sum(r.games for r in shown.values()) == 24


def test_a_match_whose_worker_died_is_played_again_by_another(workers):
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    match = Match.objects.create(kind="exhibition", game="face-to-face", games=3000, seed="kill", rated=False)
    MatchEntry.objects.bulk_create(
        [MatchEntry(match=match, index=0, version=greedy), MatchEntry(match=match, index=1, version=rnd)]
    )
    first = workers("doomed", beat=False)
    play_match.delay(match.pk)

    def running() -> bool:
        match.refresh_from_db()
        return match.status == "running" and match.games_done > 0

    wait_for("the first worker to start the match", running, first)
    doomed_claim = match.claimed_by
    os.killpg(first.pid, signal.SIGKILL)  # the whole worker dies mid-match: no clean-up, no ack
    first.wait()
    assert not match.played_games.exists()

    second = workers("rescuer", beat=True, ARENA_MATCH_LEASE_SECONDS="5", ARENA_SWEEP_INTERVAL="1")

    def done() -> bool:
        match.refresh_from_db()
        return match.status == "done"

    wait_for("the second worker to replay the match", done, second)
    assert match.attempts == 2 and match.claimed_by != doomed_claim
    assert match.played_games.count() == 3000
    assert sorted(match.played_games.values_list("index", flat=True)) == list(range(3000))
