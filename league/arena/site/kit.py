"""The author's kit as the site serves it: bots.kit's wheel, built from this server's own sources and version.

The wheel is built once per server process into ARENA_CACHE_DIR/kit/ (a few hundred milliseconds) and served from
there; its bytes depend only on the sources, so every process of one release serves the same file and checksum.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from bots import kit

_lock = threading.Lock()
_built: KitWheel | None = None


@dataclass(frozen=True)
class KitWheel:
    path: Path
    version: str
    requires_python: str  # e.g. ">=3.11"
    size: int
    sha256: str

    @property
    def name(self) -> str:
        return self.path.name


def wheel() -> KitWheel:
    """The kit's wheel for this server, built on the first call of the process."""
    global _built
    with _lock:
        if _built is None or not _built.path.is_file():
            _built = _build(Path(settings.ARENA_CACHE_DIR) / "kit")
        return _built


def _build(folder: Path) -> KitWheel:
    folder.mkdir(parents=True, exist_ok=True)
    # Built apart and moved into place: another process building the same wheel never shows a reader half of it.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".building-") as scratch:
        built = kit.build(Path(scratch))
        path = folder / built.name
        os.replace(built, path)
    data, about = path.read_bytes(), kit.read_kit()
    return KitWheel(path, about.version, about.requires_python, len(data), hashlib.sha256(data).hexdigest())
