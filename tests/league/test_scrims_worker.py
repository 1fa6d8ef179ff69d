"""A scrim with a real Celery worker process (and its beat): the request's games are released onto the scrim
queue, played, stored with replayable logs, and unrated."""

from __future__ import annotations

from pathlib import Path

import pytest

import bots.house
from league.arena.models import Game, Match, MatchRequest, PairResult, Rating
from league.arena.play import matches
from league.arena.scrims import requests as scrims
from league.arena.uploads.house import house_version

GREEDY = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()


@pytest.mark.slow
def test_a_requests_games_are_played_by_a_worker_and_stored_unrated(alice, make_version, workers, wait_for, tmp_path):
    worker = workers("w1", ARENA_SCRIM_INTERVAL="1")
    ace = make_version(alice, "ace", source=GREEDY)
    rnd = house_version("house:random")
    scrim = scrims.request_scrim(alice, ace.bot, rnd.bot, scrims.CHUNK_GAMES + 2)  # two matches

    def done() -> bool:
        found = MatchRequest.objects.select_related("bot__owner", "opponent__owner").get(pk=scrim.pk)
        scrims.attach_progress([found])
        return found.progress.finished

    wait_for("the scrim's two matches", done, worker, timeout=240)
    found = MatchRequest.objects.select_related("bot__owner", "opponent__owner").get(pk=scrim.pk)
    scrims.attach_progress([found])
    assert (found.progress.state, found.progress.played, found.released) == ("done", 12, 12)
    played = list(Match.objects.filter(match_request=scrim).order_by("pk"))
    assert [(m.kind, m.rated, m.status, m.games) for m in played] == [
        ("scrim", False, "done", 10),
        ("scrim", False, "done", 2),
    ]
    assert all(m.claimed_by and m.claimed_by != matches.worker_name() for m in played)  # the worker's, not ours
    games = Game.objects.filter(match__match_request=scrim)
    assert games.count() == 12
    for game in games[:3]:
        game.verified_log()  # a replayable log, as every game's
    assert not PairResult.objects.exists()
    assert not Rating.objects.filter(version__in=[ace, rnd]).exists()
    p = found.progress
    assert p.wins + p.losses + p.draws == 12 and "alice/ace" in found.result and "house/random" in found.result
    log = tmp_path / "worker-w1.log"
    # Sent to the scrim queue's task, not the ladder's (the worker's log may reach the file a moment later).
    wait_for("the worker's log", lambda: "league.arena.tasks.play_scrim" in log.read_text(errors="replace"), worker, 30)


@pytest.mark.slow
def test_a_scrim_waits_until_no_ladder_match_waits(alice, make_version, workers, wait_for):
    """Ladder matches queued before the request: the scrim's match is created only once every one of them has been
    taken by a worker (none waits any more), however quickly the beat looks."""
    from league.arena import queue

    ace = make_version(alice, "ace", source=GREEDY)
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    ladder = [
        Match.objects.create_with_entries([greedy, rnd], kind="ladder", game="face-to-face", games=2, seed=f"l{k}")
        for k in range(6)
    ]
    scrim = scrims.request_scrim(alice, ace.bot, rnd.bot, 2)  # its release is asked for at once
    for match in ladder:
        queue.play_match(match.pk)
    worker = workers("w1", ARENA_SCRIM_INTERVAL="1")

    def played() -> bool:
        return Match.objects.filter(match_request=scrim, status="done").exists()

    wait_for("the scrim's match", played, worker, timeout=240)
    released = Match.objects.get(match_request=scrim).created
    taken = [Match.objects.get(pk=match.pk).started_at for match in ladder]
    assert all(started is not None and started <= released for started in taken), (released, taken)
