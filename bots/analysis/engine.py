"""Which engine made an analysis: its code revision and the leaf models it valued positions with.

A stored analysis is only as current as the engine that made it: when the leaf models are refitted or the way turns
are valued and marked changes, the same game analysed again gives other figures. The league keys its stored
analyses by this version, so an analysis made by an older engine is made again when asked for, not served stale.
"""

from __future__ import annotations

import hashlib
from functools import cache

from bots.analysis.leaf import MODELS_FILE

# Raised by hand when a change of the code (not of leaf_models.json, whose content is hashed) changes the values,
# marks or accuracy an analysis gives: 2 = Face to Face valued by the mover's cards left as well as its win chance.
CODE_REVISION = 2


@cache
def engine_version() -> str:
    """`<code revision>.<first 12 hex digits of the leaf models' SHA-256>`, e.g. `2.3f9a0c1d2e4b`."""
    digest = hashlib.sha256(MODELS_FILE.read_bytes()).hexdigest()
    return f"{CODE_REVISION}.{digest[:12]}"
