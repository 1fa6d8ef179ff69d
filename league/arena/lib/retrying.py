"""Riding out a database or broker outage: which errors are passing ones, and trying again with backoff.

A task that meets one of them waits and tries again in place (so the worker takes no other message meanwhile and
an outage does not turn the whole queue into failures); after `IN_PLACE_SECONDS` it hands the message back to
Celery to be retried later. Tasks are idempotent, so running one again is always safe, and should even that retry
be lost (the broker down too), the upkeep (`league.arena.ops.upkeep`) re-derives the lost work from the database.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

import kombu.exceptions
import redis.exceptions
from celery import Task
from django.db import InterfaceError, OperationalError, connections

log = logging.getLogger(__name__)

T = TypeVar("T")

DATABASE_ERRORS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)
BROKER_ERRORS: tuple[type[Exception], ...] = (
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)
TRANSIENT = DATABASE_ERRORS + BROKER_ERRORS

IN_PLACE_SECONDS = 60.0  # waited in place before the message goes back to Celery
FIRST_DELAY, MAX_DELAY = 0.25, 2.0  # a database back from a crash is found within 2 s
CELERY_COUNTDOWN = 30  # seconds before Celery delivers a message handed back after IN_PLACE_SECONDS


def what_failed(error: BaseException) -> str:
    """`database` or `broker`, with the error, as a log line says it."""
    part = "database" if isinstance(error, DATABASE_ERRORS) else "broker"
    return f"{part} unavailable ({type(error).__name__}: {str(error).strip().splitlines()[0] if str(error) else ''})"


def delays(budget: float = IN_PLACE_SECONDS) -> list[float]:
    """The waits between attempts: doubling from FIRST_DELAY to MAX_DELAY, with jitter, summing to about `budget`."""
    waits, total, delay = [], 0.0, FIRST_DELAY
    while total < budget:
        wait = delay * random.uniform(0.8, 1.2)  # two workers hit by one outage do not come back in step
        waits.append(wait)
        total += wait
        delay = min(delay * 2, MAX_DELAY)
    return waits


def call(function: Callable[[], T], what: str, budget: float = IN_PLACE_SECONDS) -> T:
    """`function()`, tried again after each passing error until `budget` seconds of waiting are spent."""
    waits = delays(budget)
    for attempt, wait in enumerate(waits, start=1):
        try:
            return function()
        except TRANSIENT as error:
            connections.close_all()  # a broken connection is replaced on the next query
            log.warning("%s: %s; retry %d in %.1f s", what, what_failed(error), attempt, wait)
            time.sleep(wait)
    return function()  # the last attempt: its error goes to the caller


def describe(task_name: str, args: tuple[Any, ...]) -> str:
    """A task as the logs name it: `play_match(12)`."""
    return f"{task_name.rpartition('.')[2]}({', '.join(repr(arg) for arg in args)})"


class ResilientTask(Task):
    """A Celery task that retries on database and broker errors instead of failing (see the module's doc)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        what = describe(self.name, args)
        attempt = super().__call__
        if self.request.is_eager:
            return attempt(*args, **kwargs)
        try:
            return call(lambda: attempt(*args, **kwargs), what)
        except TRANSIENT as error:
            log.error(
                "%s: %s for over %.0f s; handed back to Celery, retry in %d s",
                what,
                what_failed(error),
                IN_PLACE_SECONDS,
                CELERY_COUNTDOWN,
            )
            raise self.retry(exc=error, countdown=CELERY_COUNTDOWN, max_retries=None) from error
