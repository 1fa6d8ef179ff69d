"""The bot's modules compiled by the runner, so that a sandbox loads bytecode instead of compiling at every start.

The sandbox runs Python with -B on a read-only /bot, so it never caches bytecode itself: each start compiled the
bot's source anew (1-3 ms of CPU for a house bot's size, twice a match). The runner compiles each .py file of the
unpacked bot once per content and writes it, as an unchecked hash-based .pyc (PEP 552), into the `__pycache__`
beside it, where the sandbox's import system looks first. The league's upload check has compiled the same source
already, so compiling it here exposes the runner to nothing new; a file that does not compile gets no .pyc, and
the sandbox reports its error as before. The .pyc only ever runs inside that bot's own sandbox.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import sys
import threading
from collections import OrderedDict
from pathlib import Path

# Source compiled per bot start at most (a cache miss compiles some 5 MiB a second): beyond it, files are left to
# the sandbox, which compiles only what the bot imports, so an upload of many large modules costs the runner no more.
SOURCE_BUDGET_BYTES = 1 << 20
CACHE_BYTES = 16 << 20  # of bytecode kept per runner process, least recently used dropped first
UNCHECKED_HASH_FLAGS = (0b01).to_bytes(4, "little")  # hash-based, source never checked (read-only anyway)

_cache: OrderedDict[tuple[bytes, str], bytes] = OrderedDict()
_cache_lock = threading.Lock()
_cached_bytes = 0


def precompile(bot_dir: Path, shown_dir: str) -> None:
    """Write a .pyc for the compilable .py files under `bot_dir` (shallowest first, within the source budget),
    which the sandbox sees at `shown_dir`."""
    budget = SOURCE_BUDGET_BYTES
    for source in sorted(bot_dir.rglob("*.py"), key=lambda path: (len(path.parts), path)):
        if source.is_symlink() or not source.is_file():
            continue
        size = source.stat().st_size
        if size > budget:
            continue
        budget -= size
        shown = f"{shown_dir}/{source.relative_to(bot_dir).as_posix()}"
        pyc = bytecode(source.read_bytes(), shown)
        if pyc is None:
            continue
        cache_dir = source.parent / "__pycache__"
        try:
            cache_dir.mkdir(exist_ok=True)
            (cache_dir / f"{source.stem}.{sys.implementation.cache_tag}.pyc").write_bytes(pyc)
        except OSError:
            continue  # e.g. the bot ships a file named __pycache__: the sandbox compiles this one itself


def bytecode(source: bytes, shown: str) -> bytes | None:
    """The .pyc file's content for `source` as the file `shown`, or None if it does not compile."""
    global _cached_bytes
    key = (hashlib.sha256(source).digest(), shown)
    with _cache_lock:
        pyc = _cache.get(key)
        if pyc is not None:
            _cache.move_to_end(key)
            return pyc
    try:
        # as the sandbox's import system would: no future flags of ours, no -O (the sandbox runs without it)
        code = compile(source, shown, "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
        return None
    pyc = importlib.util.MAGIC_NUMBER + UNCHECKED_HASH_FLAGS + importlib.util.source_hash(source) + marshal.dumps(code)
    with _cache_lock:
        if key not in _cache:
            _cache[key] = pyc
            _cached_bytes += len(pyc)
        while _cached_bytes > CACHE_BYTES and len(_cache) > 1:
            _, dropped = _cache.popitem(last=False)
            _cached_bytes -= len(dropped)
    return pyc
