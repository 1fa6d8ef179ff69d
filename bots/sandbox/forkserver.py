"""The runner's handle on its fork server (zygote.py): started on first use, one per runner process and identity.

The fork server runs as the sandbox's uid with the sandbox's environment, from a folder of its own compiled files
(itself, the harness and the protocol module) that the sandbox uid can read. A root runner starts it inside the
staged namespace (staging.py) when that uid cannot reach the Python runtime: there it finds the runtime at its own
path, as the sandbox shows it, so every module it loads has the paths a bot would see.

Requests and replies are JSON messages on two SOCK_SEQPACKET socket pairs (one to the fork server's launcher, which
starts each sandbox's bwrap, one to the fork server, which puts the harness into it), the descriptors going as
SCM_RIGHTS. The fork server and its launcher end when this process's ends of the sockets close, i.e. when this
process ends.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import py_compile
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bots import protocol
from bots.sandbox import leftovers, seccomp, staging
from bots.sandbox.bwrap import (
    PYTHON_FLAGS,
    SANDBOX_HARNESS_DIR,
    SandboxUnavailable,
    python_runtime,
    reachable,
    scratch_root,
)

SANDBOX_ENV = {"HOME": "/tmp", "TMPDIR": "/tmp", "MALLOC_ARENA_MAX": "2"}  # bwrap's --clearenv and --setenv
START_SECONDS = 10.0
# Whether the fork server joins each sandbox's PID namespace itself (from a user namespace of its own) to fork the
# harness straight into it; where it cannot, or with this off, a monitor forked per sandbox joins it instead
JOIN_PID_NAMESPACE = True
MONITORS = "--monitors"  # the fork server's argument that turns it off (zygote.py)
FOLDER_PREFIX = "thegame-zygote-"  # then the runner's pid and a random part
SOURCES = {  # compiled name: source
    "zygote.pyc": Path(__file__).with_name("zygote.py"),
    "_arena_harness.pyc": Path(__file__).with_name("harness.py"),
    "_arena_protocol.pyc": Path(protocol.__file__),
}


class ForkServer:
    """One running fork server and its control socket."""

    def __init__(self, uid: int, gid: int, switch: bool) -> None:
        self.owner = os.getpid()
        self.folder = _compiled_folder(uid, gid, switch)
        runtime = python_runtime()
        staged = None
        if switch and not reachable(runtime.executable, uid, {gid}):
            staged = staging.staged_runtime(runtime.prefix, uid, gid)  # where it runs the runtime at its own path
        prefix = staging.launch_prefix(uid, gid, staged) if switch else []
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        launches, launcher_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        passed = [theirs.fileno(), launcher_end.fileno()]
        try:
            self.process = subprocess.Popen(
                [
                    *prefix,
                    runtime.executable,
                    *PYTHON_FLAGS,
                    str(self.folder / "zygote.pyc"),
                    *map(str, passed),
                    *([] if JOIN_PID_NAMESPACE else [MONITORS]),
                ],  # fmt: skip
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=passed,
                env=SANDBOX_ENV,
                cwd="/",
            )
        except OSError as error:
            ours.close()
            launches.close()
            raise SandboxUnavailable(f"cannot start the fork server: {error}") from error
        finally:
            theirs.close()
            launcher_end.close()
        self.control = ours
        self.launches = launches
        config = {
            "seccomp": seccomp.filter_bpf().hex(),
            "harness_dir": str(self.folder),
        }
        try:
            self.control.settimeout(START_SECONDS)
            self.control.send(json.dumps(config).encode())
            ready = json.loads(self.control.recv(1 << 16) or b"{}")
        except (OSError, ValueError) as error:
            ready = {"error": f"no answer: {error}"}
        if ready.get("ready") is not True:
            self.close()
            error = self.process.stderr.read().decode("utf-8", "replace").strip()[-2000:]
            raise SandboxUnavailable(f"the fork server did not start ({str(ready)[:200]}): {error}")
        self.process.stderr.close()  # it writes nothing there once started
        self.control.settimeout(None)
        self.launcher_pid: int = ready["launcher"]
        self.joins_pid: bool = ready["joins_pid"]  # whether it forks each harness itself (else through a monitor)
        self.lock = threading.Lock()
        self.launch_lock = threading.Lock()

    @property
    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def launch(
        self, argv: list[str], env: dict[str, str], fds: dict[str, int], places: dict[str, int]
    ) -> tuple[int, int]:
        """Have the fork server's launcher start `argv` (bwrap) with `env` and each of `fds` at its place in it, as
        its own child, in a new session; its PID and a pidfd on it."""
        message = json.dumps({"launch": argv, "env": env, "fds": list(fds), "places": places}).encode()
        reply, pidfds = self._ask(self.launches, self.launch_lock, message, list(fds.values()))
        if "error" in reply or len(pidfds) != 1:
            for fd in pidfds:
                os.close(fd)
            raise SandboxUnavailable(f"cannot start the sandbox: {reply.get('error', 'no pidfd on bwrap')}")
        return reply["bwrap"], pidfds[0]

    def spawn(
        self,
        fds: dict[str, int],
        bot_dir: str,
        settings: list[str],
        sandbox: dict[str, Any],
        meanwhile: Callable[[], None] | None = None,
    ) -> int:
        """Have the fork server put a harness into the sandbox `sandbox` names (bwrap's PID, its child's, and the
        seconds it may take to be built), with the pipes and pidfds in `fds`; the PID of the process it forked (the
        harness, or its monitor). `meanwhile` is called while the fork server works, before its reply is awaited."""
        message = json.dumps({"fds": list(fds), "bot_dir": bot_dir, "settings": settings, **sandbox}).encode()
        reply, _ = self._ask(self.control, self.lock, message, list(fds.values()), meanwhile)
        if "error" in reply:
            raise SandboxUnavailable(f"cannot put the bot into its sandbox: {reply['error']}")
        return reply["harness"]

    @staticmethod
    def _ask(
        channel: socket.socket,
        lock: threading.Lock,
        message: bytes,
        fds: list[int],
        meanwhile: Callable[[], None] | None = None,
    ) -> tuple[dict[str, Any], list[int]]:
        """Send one request with `fds` on `channel` and call `meanwhile`; the reply and the descriptors that came with
        it (this process's now, and close-on-exec). The reply is read even when `meanwhile` raises, which then
        propagates."""
        received: list[int] = []
        with lock:
            try:
                socket.send_fds(channel, [message], fds)
            except OSError as error:
                return {"error": f"the fork server did not answer: {error}"}, received
            try:
                if meanwhile is not None:
                    meanwhile()
            finally:
                try:
                    data, received, _, _ = socket.recv_fds(channel, 1 << 16, 1, socket.MSG_CMSG_CLOEXEC)
                    reply = json.loads(data or b'{"error": "the fork server has ended"}')
                except (OSError, ValueError) as error:
                    reply = {"error": f"the fork server did not answer: {error}"}
        return reply, received

    def cpu_seconds(self) -> float:
        """CPU time of the fork server, its launcher, and what they have reaped (harnesses, bwraps), so far."""
        ticks = 0
        for pid in (self.process.pid, self.launcher_pid):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except FileNotFoundError:
                continue
            if pid == self.launcher_pid and int(fields[1]) != self.process.pid:
                continue  # the launcher has ended (its time is in the fork server's children's) and its PID is reused
            ticks += sum(int(value) for value in fields[11:15])
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.control.close()
        self.launches.close()
        try:
            self.process.wait(START_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_lock = threading.Lock()
_servers: dict[tuple[int, int, bool], ForkServer] = {}


def fork_server(uid: int, gid: int, switch: bool) -> ForkServer:
    """This process's fork server for sandboxes of this identity, started (again) if need be."""
    key = (uid, gid, switch)
    with _lock:
        server = _servers.get(key)
        if server is None or not server.alive:
            if server is not None and server.owner == os.getpid():
                server.close()
            server = _servers[key] = ForkServer(uid, gid, switch)
        return server


def running_servers() -> list[ForkServer]:
    """The fork servers of this process (for CPU accounting in benchmarks)."""
    with _lock:
        return [server for server in _servers.values() if server.alive]


def _forget_after_fork() -> None:
    """In a forked child: the parent's fork servers are the parent's (its sockets are closed here)."""
    for server in _servers.values():
        server.control.close()
        server.launches.close()
    _servers.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


@atexit.register
def stop_all() -> None:
    """Stop this process's fork servers (each is started again on its next use)."""
    with _lock:
        for server in _servers.values():
            if server.owner == os.getpid():
                server.close()
        _servers.clear()


@functools.lru_cache(maxsize=1)
def _compiled() -> dict[str, bytes]:
    """The fork server's files, compiled once per process; tracebacks show the harness at its sandbox path."""
    compiled = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, source in SOURCES.items():
            target = os.path.join(scratch, name)
            shown = f"{SANDBOX_HARNESS_DIR}/{name[:-1]}"
            mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
            py_compile.compile(str(source), cfile=target, dfile=shown, doraise=True, invalidation_mode=mode)
            compiled[name] = Path(target).read_bytes()
    return compiled


def _compiled_folder(uid: int, gid: int, switch: bool) -> Path:
    root = scratch_root()
    for orphan in leftovers.orphans(root, FOLDER_PREFIX):
        shutil.rmtree(orphan, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=leftovers.own_prefix(FOLDER_PREFIX), dir=root))
    for name, code in _compiled().items():
        (folder / name).write_bytes(code)
        (folder / name).chmod(0o644)
    folder.chmod(0o755)
    if not reachable(str(folder / "zygote.pyc"), uid, {gid}):
        shutil.rmtree(folder, ignore_errors=True)
        raise SandboxUnavailable(f"uid {uid} cannot read the fork server's files in {folder}")
    return folder
