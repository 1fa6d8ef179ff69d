"""The one way league code asks for background work: a Celery task named here, sent once the transaction commits.

Domain modules (matches, scheduling, refits, tournaments, uploads) call these functions; `tasks.py` holds the
Celery tasks, thin adapters that call back into the domain. Sending a task by its name rather than through the
task object keeps the imports one way (tasks -> domain -> queue), so nothing imports in a circle and no import
hides inside a function. Sending on commit (as Celery's `delay_on_commit` does) means a worker never looks for a
row that is not committed yet, and nothing is sent for work that rolled back.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from league.celery import app

PLAY_MATCH = "league.arena.tasks.play_match"
PLAY_VALIDATION = "league.arena.tasks.play_validation"  # routed to its own queue (settings.CELERY_TASK_ROUTES)
REFIT_RATINGS = "league.arena.tasks.refit_ratings"
FINISH_TOURNAMENT = "league.arena.tasks.finish_tournament"


def _send(name: str, args: tuple[Any, ...], countdown: float | None) -> None:
    # A signature runs a registered task as the task itself would (eager mode included) and falls back to
    # sending by name in a process that never imported tasks.py (the web server).
    app.signature(name, args=args, countdown=countdown).apply_async()


def send_on_commit(name: str, *args: Any, countdown: float | None = None) -> None:
    """Send the task `name` with `args` when the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: _send(name, args, countdown))


def play_match(match_id: int, countdown: float | None = None) -> None:
    send_on_commit(PLAY_MATCH, match_id, countdown=countdown)


def play_validation(match_id: int) -> None:
    send_on_commit(PLAY_VALIDATION, match_id)


def refit_ratings(game: str) -> None:
    send_on_commit(REFIT_RATINGS, game)


def finish_tournament(tournament_id: int) -> None:
    send_on_commit(FINISH_TOURNAMENT, tournament_id)
