"""A seal on each stored game: an HMAC, keyed by SECRET_KEY, over the game's place (match, index), its game, its
recorded outcome and its compressed log, written in the transaction that stores the game.

Why a seal can stand in for replaying the log: a worker's engine writes the log as it plays the game, and the
outcome stored beside it is the one that same run of the engine returned, so a log is verified when it is stored
(the server never stores a log it did not play). What replaying a stored log later (`Game.verified_log`) guards
against is a change to the row since: an edit, a restore mixing rows, corruption. A seal that still holds proves
the row's log and outcome are byte for byte what the worker stored, unless whoever changed them also holds
SECRET_KEY (and with it every session). So the export (league/arena/play/archives.py) trusts a holding seal and
replays only the games without one: stored before seals existed, changed since, or sealed under a key that is no
longer SECRET_KEY or in SECRET_KEY_FALLBACKS.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

SALT = b"league.arena.play.seals: a game's log as stored"


def keys() -> list[bytes]:
    """The keys a seal may be made with: SECRET_KEY's first (new seals), then its fallbacks."""
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return [hashlib.sha256(SALT + secret.encode()).digest() for secret in secrets]


def seal(
    match_id: int,
    index: int,
    game: str,
    termination: str,
    winner_seat: int | None,
    score: int | None,
    log_zlib: bytes,
    key: bytes | None = None,
) -> bytes:
    """The seal of a game as it is stored (32 bytes)."""
    head = f"{match_id}:{index}:{game}:{termination}:{winner_seat}:{score}:".encode()
    return hmac.new(key or keys()[0], head + log_zlib, hashlib.sha256).digest()


def holds(stored: bytes, keys: list[bytes], *fields) -> bool:
    """Whether `stored` is the seal of the game `fields` (seal()'s arguments but the key) under one of `keys`."""
    if len(stored) != hashlib.sha256().digest_size:
        return False
    return any(hmac.compare_digest(stored, seal(*fields, key=key)) for key in keys)
