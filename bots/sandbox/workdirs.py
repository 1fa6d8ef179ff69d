"""The directories sandboxes find their bot's files in: prepared once per upload in a runner process, and shared by
every sandbox of that upload.

A sandbox's directory holds the unpacked bot (`bot/`, its modules compiled: bytecode.py) and an empty folder bound
over the parts of the runtime a bot must not see (`empty/`), both owned by the sandbox's uid. bwrap binds both
read-only, and no code of a bot runs where the host's side of them is in view, so no sandbox can change them: the
sandboxes of one upload (both seats of a self-play match, the next match of the same bots) can share one. Preparing
one costs about a millisecond of CPU per sandbox (unpacking, compiling, the mode and owner of each file, removing it
all again); kept, that is paid once per upload and runner process.

An upload is known by its content (bot_version), so a file replaced at the same path gets a directory of its own. A
directory no sandbox uses is kept while it is among the IDLE_KEPT most recently used and the idle ones together hold
at most IDLE_BYTES; it is removed once it falls out, and when the process ends (a runner killed outright leaves it
to the next one: leftovers.py).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox import bytecode, leftovers
from bots.sandbox.bwrap import SANDBOX_BOT_DIR, SandboxUnavailable, reachable, scratch_root
from bots.sandbox.limits import SandboxLimits
from bots.sandbox.unpack import UnpackLimits, bot_version, tree_modes, unpack_bot

IDLE_KEPT = 32  # directories no sandbox uses, most recently used first
IDLE_BYTES = 64 << 20  # of files in them together (an upload unpacks to at most 50 MiB: UnpackLimits)


@dataclass
class _Entry:
    path: Path
    size: int
    users: int = 0


_lock = threading.Lock()
_entries: OrderedDict[tuple, _Entry] = OrderedDict()  # least recently used first


def acquire(
    bot_file: Path, limits: SandboxLimits, unpack_limits: UnpackLimits | None = None, temp_root: str | None = None
) -> Path:
    """A directory prepared for `bot_file`'s sandboxes under these limits, held until `release`d."""
    root = temp_root or scratch_root()
    key = (bot_version(bot_file), limits.identity(), unpack_limits, root)
    with _lock:
        kept = _take(key)
    if kept is not None:
        return kept
    path = prepare(bot_file, limits, unpack_limits, root)
    with _lock:
        kept = _take(key)
        if kept is not None:  # another thread prepared the same meanwhile
            shutil.rmtree(path, ignore_errors=True)
            return kept
        _entries[key] = _Entry(path, _size(path), users=1)
        _entries.move_to_end(key)  # a key whose folder was removed meanwhile keeps its old place otherwise
        _remove_idle_beyond_bounds()
    return path


def _take(key: tuple) -> Path | None:
    """The kept directory for `key`, now held once more and the most recently used; None if there is none (the lock
    held)."""
    entry = _entries.get(key)
    if entry is None or not entry.path.is_dir():
        return None
    entry.users += 1
    _entries.move_to_end(key)
    return entry.path


def release(path: Path) -> None:
    """The sandbox that held `path` is done with it."""
    with _lock:
        # not among them after a fork (the parent removes it) or once the process has removed them all at its end
        for entry in _entries.values():
            if entry.path == path and entry.users > 0:
                entry.users -= 1
                break
        _remove_idle_beyond_bounds()


def prepare(bot_file: Path, limits: SandboxLimits, unpack_limits: UnpackLimits | None, root: str) -> Path:
    """A new directory with the bot unpacked and compiled, every part of it readable by the sandbox's uid alone."""
    _remove_orphans_once(root)
    workdir = Path(tempfile.mkdtemp(prefix=leftovers.own_prefix(leftovers.SANDBOX_PREFIX), dir=root))
    try:
        for sub in ("bot", "empty"):
            (workdir / sub).mkdir()
        unpack_bot(bot_file, workdir / "bot", unpack_limits)
        bytecode.precompile(workdir / "bot", SANDBOX_BOT_DIR)
        uid, gid, switch = limits.identity()
        for path, mode in tree_modes(workdir):
            os.chmod(path, 0o700 if path == str(workdir) else mode)
            if switch:
                os.chown(path, uid, gid)
        if not reachable(str(workdir), uid, {gid}):
            raise SandboxUnavailable(
                f"uid {uid} cannot reach the sandbox's directory {workdir}: "
                "choose a temp_root (or TMPDIR) whose parents everyone may traverse, such as /tmp or /dev/shm"
            )
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return workdir


def _remove_idle_beyond_bounds() -> None:
    """Remove the least recently used idle directories until IDLE_KEPT and IDLE_BYTES hold (the lock held)."""
    idle = [key for key, entry in _entries.items() if entry.users == 0]  # least recently used first
    idle_bytes = sum(_entries[key].size for key in idle)
    while idle and (len(idle) > IDLE_KEPT or idle_bytes > IDLE_BYTES):
        entry = _entries.pop(idle.pop(0))
        idle_bytes -= entry.size
        shutil.rmtree(entry.path, ignore_errors=True)


def _size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file() and not file.is_symlink())


@functools.lru_cache(maxsize=8)
def _remove_orphans_once(root: str) -> None:
    """Once per process and directory: a runner killed before (this worker's predecessor) left its bots' files, and
    perhaps a process holding them (leftovers.end_strays), ended first."""
    leftovers.end_strays(root)
    for orphan in leftovers.orphans(root, leftovers.SANDBOX_PREFIX):
        shutil.rmtree(orphan, ignore_errors=True)


def remove_idle() -> None:
    """Remove every directory no sandbox uses now (the sandbox check's proof that this runner can)."""
    with _lock:
        for key in [key for key, entry in _entries.items() if entry.users == 0]:
            shutil.rmtree(_entries.pop(key).path, ignore_errors=True)


@atexit.register
def remove_all() -> None:
    """Remove every kept directory (at the process's end: its sandboxes are gone by then)."""
    with _lock:
        for entry in _entries.values():
            shutil.rmtree(entry.path, ignore_errors=True)
        _entries.clear()


def _forget_after_fork() -> None:
    """In a forked child: the directories are the parent's, which removes them."""
    global _lock
    _lock = threading.Lock()  # it may have been held by another thread of the parent as it forked
    _entries.clear()


os.register_at_fork(after_in_child=_forget_after_fork)
