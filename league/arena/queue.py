"""The one way league code asks for background work: a Celery task named here, sent once the transaction commits.

Domain modules (matches, scheduling, refits, tournaments, uploads) call these functions; `tasks.py` holds the
Celery tasks, thin adapters that call back into the domain. Sending a task by its name rather than through the
task object keeps the imports one way (tasks -> domain -> queue), so nothing imports in a circle and no import
hides inside a function. Sending on commit (as Celery's `delay_on_commit` does) means a worker never looks for a
row that is not committed yet, and nothing is sent for work that rolled back.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import kombu.exceptions
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from league.arena.lib import retrying
from league.arena.models import Match
from league.celery import app

log = logging.getLogger(__name__)

PLAY_MATCH = "league.arena.tasks.play_match"
PLAY_VALIDATION = "league.arena.tasks.play_validation"  # routed to its own queue (settings.CELERY_TASK_ROUTES)
PLAY_SCRIM = "league.arena.tasks.play_scrim"  # routed to the scrim queue (settings.CELERY_TASK_ROUTES)
RELEASE_SCRIMS = "league.arena.tasks.release_scrims"
PLAY_TEST = "league.arena.tasks.play_test"  # routed to the version tests' queue (settings.CELERY_TASK_ROUTES)
RELEASE_TESTS = "league.arena.tasks.release_tests"
REFIT_RATINGS = "league.arena.tasks.refit_ratings"
FINISH_TOURNAMENT = "league.arena.tasks.finish_tournament"
SEND_NOTIFICATION_EMAIL = "league.arena.tasks.send_notification_email"
SCHEDULE_LADDER = "league.arena.tasks.schedule_ladder"
# On Redis a queue's messages are taken by priority (0 first): the control tasks have 0, fresh matches 6
# (settings.CELERY_TASK_ROUTES). A re-sent match gets 3, so recovery comes before any fresh match.
RESEND_PRIORITY = 3
ANALYSE_GAME = "league.arena.tasks.analyse_game"  # routed to the analysis queue, the lowest priority
# A key of the league's own in the broker's Redis, set by the upkeep: when it is gone, Redis lost its data (restarted
# without persistence, flushed) and every message sent to it before with it.
BROKER_MARK = "arena.broker-mark"


def _send(name: str, args: tuple[Any, ...], countdown: float | None, priority: int | None = None) -> None:
    # A signature runs a registered task as the task itself would (eager mode included) and falls back to
    # sending by name in a process that never imported tasks.py (the web server).
    options = {} if priority is None else {"priority": priority}
    try:
        app.signature(name, args=args, countdown=countdown, **options).apply_async()
    except retrying.BROKER_ERRORS as error:
        # The transaction has committed: raising would only fail a caller whose work is done. The upkeep sends
        # whatever this message asked for again, from what the database says.
        log.error(
            "%s not sent: %s; the upkeep re-derives it from the database",
            retrying.describe(name, args),
            retrying.what_failed(error),
        )


def send_on_commit(name: str, *args: Any, countdown: float | None = None, priority: int | None = None) -> None:
    """Send the task `name` with `args` when the current transaction commits (at once outside one); `priority`
    overrides its route's (on Redis, 0 is taken first)."""
    transaction.on_commit(lambda: _send(name, args, countdown, priority))


def play_match(match_id: int, countdown: float | None = None, priority: int | None = None) -> None:
    send_on_commit(PLAY_MATCH, match_id, countdown=countdown, priority=priority)


def play_validation(match_id: int, countdown: float | None = None, priority: int | None = None) -> None:
    send_on_commit(PLAY_VALIDATION, match_id, countdown=countdown, priority=priority)


def play_scrim(match_id: int, countdown: float | None = None, priority: int | None = None) -> None:
    send_on_commit(PLAY_SCRIM, match_id, countdown=countdown, priority=priority)


def play_test(match_id: int, countdown: float | None = None, priority: int | None = None) -> None:
    send_on_commit(PLAY_TEST, match_id, countdown=countdown, priority=priority)


def play(match_id: int, kind: str, countdown: float | None = None, resent: bool = False) -> None:
    """Send a match (again) to the queue its kind plays on: validations, scrims and version tests have their own. A
    match `resent` (its run died, broke or was handed back, or its message was lost) jumps ahead of the fresh matches
    there."""
    send = {"validation": play_validation, "scrim": play_scrim, "test": play_test}.get(kind, play_match)
    send(match_id, countdown=countdown, priority=RESEND_PRIORITY if resent else None)


def release_scrims() -> None:
    """Ask for the next scrim matches to be put on their queue, if the league has room (see scrims/requests.py)."""
    send_on_commit(RELEASE_SCRIMS)


def release_tests() -> None:
    """Ask for the running version tests' next batches to be queued, if the league has room (versiontests/running)."""
    send_on_commit(RELEASE_TESTS)


def refit_ratings(pool_key: str, countdown: float | None = None) -> None:
    """Ask for a refit of the rating pool with this key (league.arena.ladder.pools), `countdown` seconds later."""
    send_on_commit(REFIT_RATINGS, pool_key, countdown=countdown)


def schedule_ladder(game: str) -> None:
    """Ask for the game's ladder matches to be scheduled now, if it has room (see ladder/scheduling.py)."""
    send_on_commit(SCHEDULE_LADDER, game)


def finish_tournament(tournament_id: int) -> None:
    send_on_commit(FINISH_TOURNAMENT, tournament_id)


def send_notification_email(notification_id: int) -> None:
    """Ask for a notice's e-mail to be sent (league.arena.notifications.delivery)."""
    send_on_commit(SEND_NOTIFICATION_EMAIL, notification_id)


def analyse_game(analysis_id: int) -> None:
    """Ask for a game's analysis to be run (league.arena.analysis.runs)."""
    send_on_commit(ANALYSE_GAME, analysis_id)


def match_queues() -> dict[str, list[str]]:
    """The queue each kind of match is sent to: validations, scrims and tests have their own (CELERY_TASK_ROUTES)."""
    own = {
        settings.ARENA_VALIDATION_QUEUE: Match.Kind.VALIDATION,
        settings.ARENA_SCRIM_QUEUE: Match.Kind.SCRIM,
        settings.ARENA_TEST_QUEUE: Match.Kind.TEST,
    }
    others = [kind for kind in Match.Kind if kind not in own.values()]
    return {settings.CELERY_TASK_DEFAULT_QUEUE: others, **{name: [kind] for name, kind in own.items()}}


def waiting(queue_name: str) -> int | None:
    """How many messages wait in the broker's queue `queue_name` (not those a worker holds); None if unreachable."""
    try:
        with app.connection_for_read() as connection:
            try:
                return connection.default_channel.queue_declare(queue=queue_name, passive=True).message_count
            except kombu.exceptions.ChannelError:
                return 0  # the queue does not exist (yet, or any more): nothing waits in it
    except retrying.BROKER_ERRORS as error:
        log.warning("queue %s not read: %s", queue_name, retrying.what_failed(error))
        return None


def broker_restarted_at() -> datetime | None:
    """When the broker started, if it started empty since the last call found it whole: every message sent to it
    before then is lost. None when it kept its messages, cannot tell (not Redis) or is away.

    On Redis, a key of ours (BROKER_MARK) set by the previous call is gone only when Redis lost its data (restarted
    without persistence, or a new server: a league's first call finds none either). Setting it again, only where it is
    missing, is the check, so of two upkeeps at once one is told. Redis's uptime says when it started (to the second:
    what was sent in its first second may be sent again, which its claim turns away); what was sent after that is in it.
    """
    try:
        with app.connection_for_write() as connection:
            if connection.transport.driver_type != "redis":
                return None
            client = connection.default_channel.client
            if not client.set(BROKER_MARK, timezone.now().isoformat(), nx=True):
                return None
            uptime = int(client.info("server")["uptime_in_seconds"])
    except retrying.BROKER_ERRORS as error:
        log.warning("the broker's mark not read: %s", retrying.what_failed(error))
        return None
    started = timezone.now() - timedelta(seconds=uptime)
    log.warning("the broker started empty %d s ago (its mark is gone): what was sent before is sent again", uptime)
    return started
