"""Match seeds that say nothing about the match: every kind looks like 32 random hex digits.

A bot sees its match's seed, so a seed naming its kind (`validate-...`, `tournament-...`) would let a bot play well
only in validation games, or only in rated ones. Deterministic seeds (a tournament's, a version's validation) are
keyed with SECRET_KEY, so they stay the same for the same match and no bot can compute them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings

SEED_HEX_DIGITS = 32


def random_seed() -> str:
    return secrets.token_hex(SEED_HEX_DIGITS // 2)


def derived_seed(label: str) -> str:
    """The seed for `label` (e.g. "validate-<sha256>"), the same every time, unguessable without SECRET_KEY."""
    key = hashlib.sha256(f"arena-match-seed:{settings.SECRET_KEY}".encode()).digest()
    return hmac.new(key, label.encode(), hashlib.sha256).hexdigest()[:SEED_HEX_DIGITS]
