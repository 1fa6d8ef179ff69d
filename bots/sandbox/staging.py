"""A mount namespace in which the Python runtime is reachable by the sandbox's uid, made once per runner process.

A root runner may use an interpreter that the sandbox uid cannot reach (e.g. under /root, mode 0700). bwrap,
already running as that uid, could then not bind it into the sandbox. So the runtime is bound, read-only, over
an empty directory that everyone may traverse, in a private mount namespace of this runner process alone: the
host's mounts never change. Every sandbox is launched from inside that namespace (`nsenter --mount`), so the
namespace is set up once, by util-linux's `unshare` and `mount` (no fork of the runner: forking a big worker
process costs milliseconds), and kept alive by an open file descriptor on it.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass

from bots.sandbox import leftovers
from bots.sandbox.bwrap import SandboxUnavailable, scratch_root, system_tool

SETUP_SECONDS = 10.0
STAGE_PREFIX = "thegame-runtime-"  # then the runner's pid and a random part
# $0 and $1 are the runtime and the empty directory; `read` holds the namespace open until we have its fd
_BIND_SCRIPT = 'mount --rbind -- "$0" "$1" && mount -o remount,bind,ro -- "$1" && echo staged && read -r _'


@dataclass(frozen=True)
class StagedRuntime:
    namespace_fd: int  # this process's open /proc/PID/ns/mnt of it, close-on-exec; nsenter opens it by path
    path: str  # where the runtime's prefix appears inside that namespace


_lock = threading.Lock()
_staged: dict[str, StagedRuntime] = {}


def staged_runtime(prefix: str) -> StagedRuntime:
    """The namespace showing `prefix` at a reachable path (set up on this process's first use)."""
    with _lock:
        staged = _staged.get(prefix)
        if staged is None:
            staged = _staged[prefix] = _stage(prefix, scratch_root())
        return staged


def _tool(name: str) -> str:
    return system_tool(name, "it stages the Python runtime for the sandbox")


def _remove_stale(scratch_root: str) -> None:
    """Remove the (empty) mount points of runner processes that ended without their exit handlers."""
    for orphan in leftovers.orphans(scratch_root, STAGE_PREFIX):
        try:
            orphan.rmdir()
        except OSError:
            pass


def _stage(prefix: str, scratch_root: str) -> StagedRuntime:
    _remove_stale(scratch_root)
    target = tempfile.mkdtemp(prefix=leftovers.own_prefix(STAGE_PREFIX), dir=scratch_root)
    os.chmod(target, 0o755)
    unshare = [_tool("unshare"), "--mount", "--propagation", "private", "--"]
    helper = subprocess.Popen(
        [*unshare, _tool("sh"), "-c", _BIND_SCRIPT, prefix, target],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"},
        cwd="/",
    )
    try:
        ready = helper.stdout.readline()  # bounded: the helper either says "staged" or exits
        if ready.strip() != b"staged":
            helper.stdin.close()
            error = helper.stderr.read().decode("utf-8", "replace").strip()
            raise SandboxUnavailable(f"cannot stage the Python runtime {prefix} for the sandbox: {error}")
        namespace_fd = os.open(f"/proc/{helper.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    except BaseException:
        helper.kill()
        helper.wait()
        os.rmdir(target)
        raise
    helper.stdin.close()  # the helper exits; the namespace lives on through namespace_fd
    helper.wait(SETUP_SECONDS)
    helper.stdout.close()
    helper.stderr.close()
    atexit.register(_release, namespace_fd, target)
    return StagedRuntime(namespace_fd, target)


def _release(namespace_fd: int, target: str) -> None:
    os.close(namespace_fd)
    try:
        os.rmdir(target)  # on the host it was an empty directory all along
    except OSError:
        pass
