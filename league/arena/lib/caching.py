"""Rendered page fragments kept in Django's cache until what they show changes.

A fragment belongs to a scope (a game's leaderboard, one tournament). Each scope has a generation token,
part of every fragment's key; when the league announces a change (league/arena/lib/signals.py, sent after
the commit), the token is replaced, so the next request misses and renders afresh, in every process at
once. A fresh random token rather than a counter: two processes bumping together can never both write
the same next value, and a reader reads the token before the data, so it never files old data under
the new token.

Fragments live in the "default" cache (per process, or Redis); tokens in the "generations" cache, which
every process shares (league/env.py). A cache that fails only makes pages render uncached.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import caches
from django.dispatch import receiver
from redis.exceptions import RedisError

from league.arena.lib.signals import leaderboard_changed, tournament_changed

log = logging.getLogger(__name__)

CACHE_ERRORS = (RedisError, OSError)


def leaderboard_scope(game: str) -> str:
    return f"leaderboard:{game}"


def tournament_scope(tournament_id: int) -> str:
    return f"tournament:{tournament_id}"


def bot_analyses_scope(bot_id: int) -> str:
    """The bot's finished game analyses (its page's worst blunders): stale once another of them is stored."""
    return f"bot-analyses:{bot_id}"


def own_validations_scope(user_id: int) -> str:
    """The user's validation matches (which only they and staff may list): stale once a new one is committed."""
    return f"own-validations:{user_id}"


def generation(scope: str) -> str:
    """The scope's current token, made up on first use."""
    tokens = caches["generations"]
    token = tokens.get(scope)
    if token is None:
        fresh = uuid.uuid4().hex
        token = fresh if tokens.add(scope, fresh, timeout=None) else tokens.get(scope, fresh)
    return token


def bump(scope: str) -> None:
    """Make every fragment of the scope stale; never raises, as it runs after another transaction's commit."""
    try:
        caches["generations"].set(scope, uuid.uuid4().hex, timeout=None)
    except CACHE_ERRORS:
        log.exception("could not mark %s's cached pages stale; they expire by themselves", scope)


def fragment(name: str, scope: str, render: Callable[[], Any]) -> Any:
    """The cached value of `name` in the scope's current generation, or render() stored for next time.

    Whatever render() raises (an Http404, say) propagates and nothing is stored.
    """
    try:
        key = f"fragment:{name}:{generation(scope)}"
        found = caches["default"].get(key)
    except CACHE_ERRORS:
        log.warning("page cache unavailable; rendering %s uncached", name, exc_info=True)
        return render()
    if found is not None:
        return found
    value = render()
    try:
        caches["default"].set(key, value)
    except CACHE_ERRORS:
        log.warning("page cache unavailable; %s not stored", name, exc_info=True)
    return value


@receiver(leaderboard_changed, dispatch_uid="arena.caching.leaderboard")
def _leaderboard_changed(sender: Any, game: str, **kwargs: Any) -> None:
    bump(leaderboard_scope(game))


@receiver(tournament_changed, dispatch_uid="arena.caching.tournament")
def _tournament_changed(sender: Any, tournament_id: int, **kwargs: Any) -> None:
    bump(tournament_scope(tournament_id))
