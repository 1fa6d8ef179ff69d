"""A mount namespace in which the Python runtime is reachable by the sandbox's uid, made once per runner process.

A root runner may use an interpreter that the sandbox uid cannot reach (e.g. under /root, mode 0700). bwrap,
already running as that uid, could then not bind it into the sandbox, nor could the fork server run it. So, in a
private mount namespace of this runner process alone (the host's mounts never change), the runtime is bound,
read-only, over an empty directory that everyone may traverse, and at its own path too: a tmpfs covers the first
directory on that path the sandbox uid cannot traverse, and holds just the folders down to the runtime. The fork
server then runs the interpreter from its real path, which its libraries and modules are found from, and which is
where the sandbox shows it. The fork server is started inside that namespace (`nsenter --mount`), and its launcher
starts every sandbox's bwrap from there, so the namespace is set up once, by util-linux's `unshare` and `mount` (no fork
of the runner: forking a big worker process costs milliseconds), and kept alive by an open file descriptor on it.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox import leftovers
from bots.sandbox.bwrap import SandboxUnavailable, reachable, scratch_root, system_tool

SETUP_SECONDS = 10.0
STAGE_PREFIX = "thegame-runtime-"  # then the runner's pid and a random part
# $0 and $1 are the runtime and the empty directory, $2 the runtime's first unreachable ancestor (or itself);
# `read` holds the namespace open until we have its fd
_BIND_SCRIPT = (
    'mount --rbind -- "$0" "$1" && mount -o remount,bind,ro -- "$1" '
    '&& mount -t tmpfs -o mode=0755,size=64k arena-runtime "$2" && mkdir -p -- "$0" '
    '&& mount --rbind -- "$1" "$0" && mount -o remount,bind,ro -- "$0" && echo staged && read -r _'
)


@dataclass(frozen=True)
class StagedRuntime:
    namespace_fd: int  # this process's open /proc/PID/ns/mnt of it, close-on-exec; nsenter opens it by path
    path: str  # where the runtime's prefix appears inside that namespace


_lock = threading.Lock()
_staged: dict[str, StagedRuntime] = {}


def staged_runtime(prefix: str, uid: int, gid: int) -> StagedRuntime:
    """The namespace showing `prefix` to `uid` at a reachable path and at its own (made on this process's first use)."""
    with _lock:
        staged = _staged.get(prefix)
        if staged is None:
            staged = _staged[prefix] = _stage(prefix, _first_unreachable(prefix, uid, gid), scratch_root())
        return staged


def _first_unreachable(path: str, uid: int, gid: int) -> str:
    """The first directory on the way to `path` that `uid` cannot traverse (`path` itself if there is none)."""
    parts = Path(path).parts
    for depth in range(2, len(parts) + 1):
        ancestor = str(Path(*parts[:depth]))
        if not reachable(ancestor, uid, {gid}):
            return ancestor
    return path


def _tool(name: str) -> str:
    return system_tool(name, "it stages the Python runtime for the sandbox")


def launch_prefix(uid: int, gid: int, staged: StagedRuntime | None) -> list[str]:
    """What a root runner puts before its fork server's program (whose launcher starts every bwrap): enter the staged
    namespace if there is one, then drop to uid/gid for good."""
    if staged is not None:
        # through the runner's own descriptor, which stays close-on-exec: nothing of it reaches the sandbox.
        # nsenter drops the supplementary groups, then sets gid and uid, as setpriv would: one program less to start
        namespace = f"--mount=/proc/{os.getpid()}/fd/{staged.namespace_fd}"
        return [_launch_tool("nsenter"), namespace, f"--setuid={uid}", f"--setgid={gid}", "--"]
    return [_launch_tool("setpriv"), f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]


def _launch_tool(name: str) -> str:
    return system_tool(name, "a root runner needs it to launch the sandbox")


def _remove_stale(scratch_root: str) -> None:
    """Remove the (empty) mount points of runner processes that ended without their exit handlers."""
    for orphan in leftovers.orphans(scratch_root, STAGE_PREFIX):
        try:
            orphan.rmdir()
        except OSError:
            pass


def _stage(prefix: str, unreachable: str, scratch_root: str) -> StagedRuntime:
    _remove_stale(scratch_root)
    target = tempfile.mkdtemp(prefix=leftovers.own_prefix(STAGE_PREFIX), dir=scratch_root)
    os.chmod(target, 0o755)
    unshare = [_tool("unshare"), "--mount", "--propagation", "private", "--"]
    helper = subprocess.Popen(
        [*unshare, _tool("sh"), "-c", _BIND_SCRIPT, prefix, target, unreachable],
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
