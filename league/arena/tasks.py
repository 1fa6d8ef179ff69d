"""Celery tasks: thin adapters that take an id and call one domain function.

Every task is safe to run twice or concurrently; the domain functions claim their work with
conditional UPDATEs, and each task retries on database and broker errors (`retrying.ResilientTask`).
Domain code queues them by name through `league.arena.queue` (on commit), so this module imports the
domain and never the other way round.
"""

from __future__ import annotations

import os
import socket

from celery import Task, shared_task
from celery.signals import task_prerun

from league.arena.analysis import runs as analyses
from league.arena.coop import challenges
from league.arena.ladder import refits, scheduling
from league.arena.ladder.pools import RatingPool
from league.arena.lib.retrying import ResilientTask
from league.arena.notifications import delivery as notices
from league.arena.ops import upkeep
from league.arena.play import archives, hosts, matches
from league.arena.scrims import requests as scrims
from league.arena.tournaments import starting as tournaments
from league.arena.versiontests import running as version_tests


def player_name(task: Task) -> str:
    """Who claims a match: the Celery node as `celery worker --hostname` named it (e.g. w1@host) and the pool
    process's pid, so that the machinery page and the logs name a worker as its operator does."""
    node = task.request.hostname or socket.gethostname()  # no node when the task is called as a function
    return f"{node}:{os.getpid()}"


_handed_back = False  # whether this pool process handed back what its node's dead processes held


@task_prerun.connect
def hand_back_once(task: Task, **_: object) -> None:
    """Before a pool process's first task (any task: a restarted worker may get the upkeep first), hand back the
    matches and refits held by processes of its node that are gone (the pool process it replaces, the worker's
    processes before a restart), without waiting out their leases. Not in a process without a node (eager calls)."""
    global _handed_back
    if not _handed_back and task.request.hostname and not task.request.is_eager:
        worker = player_name(task)
        matches.hand_back_dead_here(worker)
        refits.hand_back_dead_here(worker)
        _handed_back = True  # only once it went through: a database away at the first task is tried at the next


def play(task: Task, match_id: int) -> None:
    """Play the match; a worker whose environment broke while playing it stands down until it heals (the match
    went back to the queue for another)."""
    try:
        matches.play(match_id, worker=player_name(task))
    except hosts.HostSick as sick:
        if task.request.is_eager or not task.request.hostname:
            raise  # called in-process (the web server, a test): there is no consumer to stop
        hosts.stand_down(task.request.hostname, str(sick))


@shared_task(
    base=ResilientTask, bind=True, acks_late=True, reject_on_worker_lost=True, name="league.arena.tasks.play_match"
)
def play_match(task: Task, match_id: int) -> None:
    play(task, match_id)


@shared_task(
    base=ResilientTask, bind=True, acks_late=True, reject_on_worker_lost=True, name="league.arena.tasks.play_validation"
)
def play_validation(task: Task, match_id: int) -> None:
    play(task, match_id)


@shared_task(
    base=ResilientTask, bind=True, acks_late=True, reject_on_worker_lost=True, name="league.arena.tasks.play_scrim"
)
def play_scrim(task: Task, match_id: int) -> None:
    play(task, match_id)


@shared_task(
    base=ResilientTask, bind=True, acks_late=True, reject_on_worker_lost=True, name="league.arena.tasks.play_test"
)
def play_test(task: Task, match_id: int) -> None:
    play(task, match_id)


@shared_task(base=ResilientTask, name="league.arena.tasks.release_tests")
def release_tests() -> None:
    version_tests.release()


@shared_task(base=ResilientTask, name="league.arena.tasks.release_scrims")
def release_scrims() -> None:
    scrims.release()


@shared_task(base=ResilientTask, bind=True, acks_late=True, name="league.arena.tasks.refit_ratings")
def refit_ratings(task: Task, pool_key: str) -> None:
    refits.run(RatingPool.from_key(pool_key), worker=player_name(task))


@shared_task(base=ResilientTask, acks_late=True, name="league.arena.tasks.start_tournament")
def start_tournament(tournament_id: int) -> None:
    tournaments.start(tournament_id)


@shared_task(base=ResilientTask, acks_late=True, name="league.arena.tasks.finish_tournament")
def finish_tournament(tournament_id: int) -> None:
    tournaments.finish_if_done(tournament_id)


@shared_task(base=ResilientTask, name="league.arena.tasks.start_due_tournaments")
def start_due_tournaments() -> None:
    tournaments.start_due()


@shared_task(base=ResilientTask, name="league.arena.tasks.schedule_ladder")
def schedule_ladder(game: str | None = None) -> None:
    if game is None:
        scheduling.schedule_all()
    else:
        scheduling.schedule(game)


@shared_task(base=ResilientTask, name="league.arena.tasks.upkeep")
def run_upkeep() -> None:
    upkeep.run()


@shared_task(base=ResilientTask, name="league.arena.tasks.export_games")
def export_games() -> None:
    archives.export()


@shared_task(base=ResilientTask, name="league.arena.tasks.schedule_challenges")
def schedule_challenges() -> None:
    challenges.schedule_all()


@shared_task(base=ResilientTask, bind=True, acks_late=True, name="league.arena.tasks.send_notification_email")
def send_notification_email(task: Task, notification_id: int) -> None:
    retry_in = notices.try_email(notification_id, task.request.retries)
    if retry_in is not None:
        raise task.retry(countdown=retry_in, max_retries=None)


@shared_task(base=ResilientTask, acks_late=True, name="league.arena.tasks.analyse_game")
def analyse_game(analysis_id: int) -> None:
    analyses.run(analysis_id)
