"""One running sandbox: the bwrap process, its pipes, deadlines, and a kill that leaves nothing behind.

The harness inside is PID 1 of its own PID namespace, so SIGKILL to it (through a pidfd, immune to PID
reuse) ends every thread and process of the sandbox at once; bwrap, our child, then exits and is reaped.

A root runner launches the sandbox without forking itself (a fork of a big worker process costs more than
the rest of the start-up): `setpriv` drops to the sandbox uid/gid before bwrap runs, `nsenter` enters the
namespace where the Python runtime is staged (see staging.py) when that uid cannot reach it, and the sandbox
is put into its cgroups by the runner while bwrap holds it back (`--block-fd`), before any code of the
sandbox's own has run.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import orjson

from bots import protocol
from bots.players import BotFailure
from bots.sandbox import cgroups, pause, scratch, seccomp, staging
from bots.sandbox.bwrap import (
    LAUNCH_PATH,
    SANDBOX_BOT_DIR,
    BwrapCommand,
    SandboxUnavailable,
    python_runtime,
    reachable,
    system_tool,
)
from bots.sandbox.limits import SandboxLimits
from games import Termination

TAIL_CHARS = 2000  # of the log, attached to a failure
REAP_SECONDS = 5.0


def _tool(name: str) -> str:
    return system_tool(name, "a root runner needs it to launch the sandbox")


def launch_prefix(uid: int, gid: int, staged: staging.StagedRuntime | None) -> list[str]:
    """What a root runner puts before bwrap's argv: enter the staged namespace, then drop to uid/gid for good."""
    if staged is not None:
        # through the runner's own descriptor, which stays close-on-exec: nothing of it reaches the sandbox.
        # nsenter drops the supplementary groups, then sets gid and uid, as setpriv would: one program less
        # to start per sandbox (a millisecond of CPU)
        namespace = f"--mount=/proc/{os.getpid()}/fd/{staged.namespace_fd}"
        return [_tool("nsenter"), namespace, f"--setuid={uid}", f"--setgid={gid}", "--"]
    return [_tool("setpriv"), f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]


def encode_request(message: dict[str, Any]) -> bytes:
    """A request as a protocol line: orjson, byte for byte what protocol.encode makes of the runner's
    JSON-ready messages and 25 times faster for an observation; protocol.encode for what orjson refuses
    (e.g. integers beyond 64 bits), so that every error is the protocol's own."""
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return protocol.encode(message)


class SandboxProcess:
    """One running sandbox process: pipes, deadlines, kill and reap."""

    def __init__(self, workdir: Path, limits: SandboxLimits) -> None:
        self.limits = limits
        self.log = bytearray()
        self.log_dropped = 0
        self.buffer = b""
        self.outgoing = memoryview(b"")  # the part of the current request not yet written
        self.pidfd: int | None = None
        self.stopped = False  # held still between its turns (pause.py)
        self.cgroup: cgroups.Cgroup | None = None
        self.block_fd: int | None = None  # written once the sandbox is in its cgroups: bwrap then goes on
        self.killed = False
        self.deadline = 0.0  # of the request in progress (perf_counter time)
        uid, gid, switch = limits.identity()
        runtime = python_runtime()
        staged = None
        if switch and not reachable(runtime.executable, uid, {gid}):
            staged = staging.staged_runtime(runtime.prefix)
        prefix = launch_prefix(uid, gid, staged) if switch else []
        prefix += scratch.launch_prefix(str(workdir / "scratch"), limits.scratch_bytes, limits.scratch_files)
        if switch and limits.use_cgroups:
            self.cgroup = cgroups.create(f"sbx-{os.getpid()}-{workdir.name}", limits.memory_bytes, limits.processes + 8)
        if limits.require_cgroups and self.cgroup is None:
            raise cgroups.unavailable(root_runner=switch)
        seccomp_fd = seccomp.filter_fd()
        info_read, info_write = os.pipe()
        block_read = None
        if self.cgroup is not None:
            block_read, self.block_fd = os.pipe2(os.O_CLOEXEC)
        command = BwrapCommand(
            bot_dir=str(workdir / "bot"),
            harness_dir=str(workdir / "harness"),
            empty_dir=str(workdir / "empty"),
            harness_args=[SANDBOX_BOT_DIR, *(f"{name}={value}" for name, value in limits.rlimits().items())],
            seccomp_fd=seccomp_fd,
            info_fd=info_write,
            block_fd=block_read,
            scratch_dir=str(workdir / "scratch"),
            uid=uid,
            gid=gid,
            runtime=runtime,
            runtime_source=staged.path if staged else None,
        )
        inherited = [fd for fd in (seccomp_fd, info_write, block_read) if fd is not None]
        try:
            # no preexec_fn, no user/group: so subprocess may use vfork, and the worker is never copied
            self.process = subprocess.Popen(
                [*prefix, *command.argv()],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=inherited,
                env={"PATH": LAUNCH_PATH, "LC_ALL": "C"},
                cwd="/",
                start_new_session=True,
            )
        except (OSError, subprocess.SubprocessError) as error:
            os.close(info_read)
            self._close_block_fd()
            self._remove_cgroup()
            raise SandboxUnavailable(f"cannot start the sandbox: {error}") from error
        finally:
            for fd in (seccomp_fd, info_write, block_read):
                if fd is not None:
                    os.close(fd)
        self.bwrap_pidfd: int | None = os.pidfd_open(self.process.pid)
        self.info_fd: int | None = info_read
        self.info = b""
        self.announced = False  # the harness has spoken: from here on, everything is the bot's doing
        self.child_pid: int | None = None  # the sandbox's PID 1, as the host sees it
        self.stdin = self.process.stdin.fileno()
        self.stdout = self.process.stdout.fileno()
        self.stderr = self.process.stderr.fileno()
        self.stderr_open = True
        self.poller = select.poll()
        for fd in (self.stdin, self.stdout, self.stderr, info_read):
            os.set_blocking(fd, False)
            if fd != self.stdin:
                self.poller.register(fd, select.POLLIN)
        if self.block_fd is not None:
            # admitted now, not when its reply is first awaited: so that it boots while the runner
            # launches the match's other sandboxes
            self._wait_for_info()

    # -- output handling -------------------------------------------------------------------------
    def _keep_log(self, data: bytes) -> None:
        self.log += data
        excess = len(self.log) - self.limits.stderr_bytes
        if excess > 0:
            del self.log[:excess]
            self.log_dropped += excess

    def drain_log(self, budget: int = 1 << 20) -> None:
        """Read what the bot logged so far, at most `budget` bytes (a flood must not hold the runner)."""
        while budget > 0 and self.stderr_open:
            try:
                data = os.read(self.stderr, 1 << 16)
            except (BlockingIOError, InterruptedError):
                return
            if not data:
                self.stderr_open = False
                self.poller.unregister(self.stderr)
                return
            self._keep_log(data)
            budget -= len(data)

    def take_log(self) -> str:
        self.drain_log()
        text = self.log.decode("utf-8", "replace")
        if self.log_dropped:
            text = f"[... {self.log_dropped} earlier bytes of output dropped]\n" + text
        self.log.clear()
        self.log_dropped = 0
        return text

    def log_tail(self) -> str:
        self.drain_log()
        return self.log[-TAIL_CHARS:].decode("utf-8", "replace")

    def _read_info(self) -> None:
        try:
            data = os.read(self.info_fd, 4096)
        except BlockingIOError:
            return
        self.info += data
        if data:
            try:
                child = json.loads(self.info)["child-pid"]
            except (ValueError, KeyError):
                return
        else:
            child = None
        self.poller.unregister(self.info_fd)
        os.close(self.info_fd)
        self.info_fd = None
        if child is not None:
            self.child_pid = child
            try:
                self.pidfd = os.pidfd_open(child)
            except OSError:
                pass  # it is already gone; killing bwrap itself is then enough
        if self.block_fd is not None and not self.killed:
            self._admit(child)

    def _admit(self, child: int | None) -> None:
        """Put bwrap and the sandbox (held back before it runs anything of its own) into the cgroups; release it."""
        try:
            for path in self.cgroup.procs_files:
                for pid in (self.process.pid, child):
                    if pid is not None:
                        fd = os.open(path, os.O_WRONLY)
                        try:
                            os.write(fd, str(pid).encode())
                        finally:
                            os.close(fd)
        except OSError as error:  # e.g. bwrap failed and is gone: nothing of the bot's has run
            self.kill()
            raise SandboxUnavailable(f"cannot put the sandbox into its cgroups: {error}: {self.log_tail()}") from error
        os.write(self.block_fd, b"\n")
        self._close_block_fd()

    @property
    def admitted(self) -> bool:
        """Whether it is in its cgroups (or needs none): only then may the bot's code be let run."""
        return self.block_fd is None

    def _close_block_fd(self) -> None:
        if self.block_fd is not None:
            os.close(self.block_fd)
            self.block_fd = None

    # -- requests --------------------------------------------------------------------------------
    def request(self, message: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        """Send one request and wait for its reply; the seconds it took are measured from the sending.

        Raises BotFailure, after which the sandbox is dead.
        """
        self._resume()  # before the clock starts: waking it up is not the bot's time
        started = time.perf_counter()
        self.send(message)
        return self.receive(message["type"], started, started + timeout)

    def send(self, message: dict[str, Any]) -> None:
        """Start writing one request (the rest is written while its reply is awaited)."""
        kind = message["type"]
        if self.buffer:
            public = f"unrequested output before {kind!r}"
            self._fail(Termination.PROTOCOL_ERROR, public, f"{public}: {protocol.preview(self.buffer)}")
        self._resume()
        self.outgoing = self._write(memoryview(encode_request(message)), kind)  # usually all of it at once
        if self.outgoing:
            self.poller.register(self.stdin, select.POLLOUT)

    def receive(self, kind: str, started: float, deadline: float) -> tuple[dict[str, Any], float]:
        """Wait until `deadline` for the reply to the request of type `kind` (or ANNOUNCE) sent at `started`.

        Both are perf_counter times. Returns the reply and the seconds from `started` to its arrival.
        """
        self.deadline = deadline
        timeout = deadline - started
        line = self._buffered_line()  # it may have come in one read with the previous reply
        while line is None:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                if not self.announced:  # no code of the bot's has run yet: the host is at fault
                    self.kill()
                    raise SandboxUnavailable(f"the sandbox did not start within {timeout:.3f}s")
                self._fail(Termination.TIMEOUT, f"no reply to {kind!r} within {timeout:.2f} s")
            for fd, _ in self.poller.poll(remaining * 1000 + 1):  # ms, rounded up: never wake too early
                if fd == self.stdin:
                    self.outgoing = self._write(self.outgoing, kind)
                    if not self.outgoing:
                        self.poller.unregister(self.stdin)
                elif fd == self.info_fd:
                    self._read_info()
                elif fd == self.stderr:
                    self.drain_log()
                elif fd == self.stdout and line is None:
                    line = self._read_line(kind)
        elapsed = time.perf_counter() - started
        if kind != protocol.ANNOUNCE:
            self._pause()  # at once: whatever it still runs now is outside its turn
        try:
            reply = protocol.check_reply(protocol.decode(line, self.limits.reply_bytes), kind)
        except protocol.ProtocolError as error:
            self._fail(Termination.PROTOCOL_ERROR, f"reply to {kind!r}: {error.public}", f"reply to {kind!r}: {error}")
        self.announced = True
        return reply, elapsed

    def _pause(self) -> None:
        """Stop the whole sandbox until its next request, so that it uses no CPU outside its turns."""
        if self.info_fd is not None:
            self._wait_for_info()  # its PID 1: sent before the harness ran, so already at hand
        if self.pidfd is not None and not self.stopped:
            self.stopped = pause.stop(self.pidfd)

    def _resume(self) -> None:
        if self.stopped:
            pause.resume(self.pidfd)
            self.stopped = False

    def _write(self, data: memoryview, request_type: str) -> memoryview:
        try:
            return data[os.write(self.stdin, data) :]
        except BlockingIOError:
            return data
        except BrokenPipeError:
            self._died(request_type)

    def _read_line(self, request_type: str) -> bytes | None:
        try:
            chunk = os.read(self.stdout, 1 << 16)
        except BlockingIOError:
            return None
        if not chunk:
            self._died(request_type)
        self.buffer += chunk
        line = self._buffered_line()
        if line is None and len(self.buffer) > self.limits.reply_bytes:
            cap = self.limits.reply_bytes
            self._fail(Termination.PROTOCOL_ERROR, f"reply to {request_type!r} exceeds {cap} bytes unterminated")
        return line

    def _buffered_line(self) -> bytes | None:
        line, newline, rest = self.buffer.partition(b"\n")
        if not newline:
            return None
        self.buffer = rest
        return line

    # -- failure and teardown --------------------------------------------------------------------
    def _fail(self, termination: Termination, detail: str, owner_detail: str | None = None) -> None:
        """Kill it and raise; `detail` goes into the public game log, `owner_detail` (quoting the bot's own text,
        e.g. its malformed reply) only into the log tail its owner reads."""
        self.kill()
        tail = self.log_tail()
        if owner_detail is not None and owner_detail != detail:
            tail += f"\n{owner_detail}\n"
        raise BotFailure(termination, detail, tail)

    def _died(self, request_type: str) -> None:
        """The sandbox closed its end: find out how it ended and raise the matching failure."""
        # it is exiting, or has closed its pipe and must not make us wait past its deadline
        status = self._wait(min(REAP_SECONDS, max(self.deadline - time.perf_counter(), 0.05)))
        oom = self.cgroup is not None and self.cgroup.oom_killed()
        self.kill()
        if not self.announced:  # it died before running any of the bot's code: bwrap or the host failed
            raise SandboxUnavailable(f"the sandbox could not start (exit {status}): {self.log_tail()}")
        termination, detail = _classify(status, oom)
        raise BotFailure(termination, f"the sandbox {detail} while handling {request_type!r}", self.log_tail())

    def kill(self) -> None:
        """SIGKILL the whole sandbox, reap it and release everything it held. Idempotent."""
        if self.killed:
            return
        self.killed = True
        if self.info_fd is not None and self.process.poll() is None:
            self._wait_for_info()
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._wait(REAP_SECONDS)
        if self.process.poll() is None:  # no PID 1 known: bwrap's death takes the sandbox (--die-with-parent)
            self.process.kill()
            self.process.wait()
        self.drain_log()
        self.stderr_open = False
        for closing in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                closing.close()
            except OSError:
                pass
        for fd in (self.pidfd, self.info_fd, self.bwrap_pidfd):
            if fd is not None:
                os.close(fd)
        self.pidfd = self.info_fd = self.bwrap_pidfd = None
        self._close_block_fd()
        self._remove_cgroup()

    def _wait(self, timeout: float) -> int | None:
        """bwrap's exit status once it has exited (reaped at once, no polling), or None after `timeout` seconds."""
        if self.process.returncode is None and self.bwrap_pidfd is not None:
            waiter = select.poll()
            waiter.register(self.bwrap_pidfd, select.POLLIN)  # readable when the process has exited
            waiter.poll(timeout * 1000 + 1)
        return self.process.poll()

    def _wait_for_info(self) -> None:
        deadline = time.monotonic() + REAP_SECONDS
        waiter = select.poll()
        waiter.register(self.info_fd, select.POLLIN)
        while self.info_fd is not None and time.monotonic() < deadline and self.process.poll() is None:
            if waiter.poll(50):
                self._read_info()

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None


def _classify(status: int | None, oom: bool) -> tuple[Termination, str]:
    if status is None:
        return Termination.CRASH, "stopped answering and did not exit"
    # bwrap passes on the harness's exit code, and 128 + N when a signal N ended it
    signum = -status if status < 0 else status - 128 if status > 128 else None
    if oom:
        return Termination.RESOURCE_LIMIT, "ran out of memory (cgroup limit)"
    if signum == signal.SIGXCPU:
        return Termination.RESOURCE_LIMIT, "used up its CPU time (SIGXCPU)"
    if signum == signal.SIGKILL:  # nothing but the kernel's limits sends it before the runner has given up
        return Termination.RESOURCE_LIMIT, "was killed by SIGKILL (CPU or memory limit)"
    if signum is not None and 0 < signum < 65:
        try:
            name = signal.Signals(signum).name
        except ValueError:  # a real-time signal has no name
            name = f"signal {signum}"
        return Termination.CRASH, f"was killed by {name}"
    return Termination.CRASH, f"exited with code {status}"
