"""End to end with a real Celery worker process: uploads, validation, a scheduled tournament, ratings.

Runs against whatever DATABASE_URL and CELERY_BROKER_URL say: PostgreSQL and Redis in CI, the embedded
SQLite and filesystem broker otherwise. The worker plays uploaded bots in the sandbox.
"""

from __future__ import annotations

import os
import re
import signal
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

import bots.house
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import (
    Bot,
    BotVersion,
    Match,
    Rating,
    RatingFit,
    Tournament,
    TournamentEntry,
)
from league.arena.play import results
from league.arena.tasks import play_match
from league.arena.uploads.house import house_version

HOUSE = Path(bots.house.__file__).parent
BROKEN = b"def play(observation):\n    raise KeyError('no such pile: p9.up')\n"


def upload(client, name: str, content: bytes) -> Bot:
    response = client.post(
        reverse("new-bot"),
        {"name": name, "game": "face-to-face", "description": "", "file": SimpleUploadedFile("bot.py", content)},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    return Bot.objects.get(name=name)


@pytest.mark.slow
def test_uploads_are_validated_and_a_scheduled_tournament_is_played(client, django_user_model, workers, wait_for):
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
    # as the public game log says, with the validation game and its opponent
    assert re.fullmatch(r"game 1 of \d+ against house/\w+: crash: play raised KeyError", failed.failure_reason)
    assert "no such pile: p9.up" in failed.stderr_tail  # the exception's text: its owner's alone
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

    # A refit from scratch (aggregates rebuilt from the stored games) reproduces the ratings the leaderboard shows.
    results.rebuild()
    refit = refits.fit(refits.pair_counts(RatingPool.ladder("face-to-face"))[0])
    shown = {r.version_id: r for r in Rating.objects.filter(game="face-to-face")}
    assert set(refit) == set(shown) == {greedy.newest_active_version().pk, rnd.newest_active_version().pk, house.pk}
    board = client.get(reverse("ladder", args=["face-to-face"])).content.decode()
    for pk, rating in refit.items():
        assert shown[pk].elo == pytest.approx(rating.elo, abs=1e-6)
        assert (shown[pk].games, shown[pk].wins, shown[pk].losses) == (rating.games, rating.wins, rating.losses)
        assert f"{rating.elo:.0f} ± {(rating.high - rating.low) / 2:.0f}" in board
    assert sum(r.games for r in shown.values()) == 24


# Several seconds of play at the runner's speed, so the first worker is still playing when it is killed.
GAMES_TO_KILL = 8000


@pytest.mark.slow
def test_a_match_whose_worker_died_is_played_again_by_another(workers, wait_for):
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    match = Match.objects.create_with_entries(
        [greedy, rnd], kind="exhibition", game="face-to-face", games=GAMES_TO_KILL, seed="kill", rated=False
    )
    first = workers("doomed", beat=False)
    play_match.delay(match.pk)

    def running() -> bool:  # claimed: its games are being played (a heartbeat may not have come yet)
        match.refresh_from_db()
        return match.status == "running"

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
    assert match.played_games.count() == GAMES_TO_KILL
    assert sorted(match.played_games.values_list("index", flat=True)) == list(range(GAMES_TO_KILL))
