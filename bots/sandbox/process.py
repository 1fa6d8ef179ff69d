"""One running sandbox: the bwrap process, its pipes, deadlines, and a kill that leaves nothing behind.

The harness inside is PID 1 of its own PID namespace, so SIGKILL to it (through a pidfd, immune to PID
reuse) ends every thread and process of the sandbox at once; bwrap, our child, then exits and is reaped.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from bots import protocol
from bots.players import BotFailure
from bots.sandbox import cgroups, seccomp
from bots.sandbox.bwrap import SANDBOX_BOT_DIR, BwrapCommand, SandboxUnavailable, python_runtime, reachable
from bots.sandbox.limits import SandboxLimits
from games import Termination

TAIL_CHARS = 2000  # of the log, attached to a failure
REAP_SECONDS = 5.0

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x1, 0x20, 0x1000, 0x4000, 0x40000


class _Launcher:
    """Runs in the forked child just before bwrap is executed, when the runner is root.

    It stages the Python runtime if the sandbox uid cannot reach it (e.g. under /root): a read-only bind
    in a mount namespace of this launch alone, so the host's mounts never change. It joins the sandbox's
    cgroups, then drops to the sandbox uid/gid for good, so bwrap and the bot never run as root.
    Everything it needs is prepared before the fork: nothing is imported or allocated much in the child.
    """

    def __init__(self, uid: int, gid: int, stage: tuple[str, str] | None, procs_files: list[str]) -> None:
        self.uid, self.gid = uid, gid
        self.stage = (os.fsencode(stage[0]), os.fsencode(stage[1])) if stage else None
        self.procs_files = procs_files
        self.libc = ctypes.CDLL(None, use_errno=True) if stage else None

    def _check(self, result: int, what: str) -> None:
        if result != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"{what}: {os.strerror(code)}")

    def __call__(self) -> None:
        if self.stage is not None:
            libc, (source, target) = self.libc, self.stage
            self._check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
            self._check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
            self._check(libc.mount(source, target, None, MS_BIND | MS_REC, None), "bind the Python runtime")
            flags = MS_REMOUNT | MS_BIND | MS_RDONLY
            self._check(libc.mount(None, target, None, flags, None), "remount the runtime read-only")
        for path in self.procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)
        os.setgroups([])
        os.setresgid(self.gid, self.gid, self.gid)
        os.setresuid(self.uid, self.uid, self.uid)


class SandboxProcess:
    """One running sandbox process: pipes, deadlines, kill and reap."""

    def __init__(self, workdir: Path, limits: SandboxLimits) -> None:
        self.limits = limits
        self.log = bytearray()
        self.log_dropped = 0
        self.buffer = b""
        self.pidfd: int | None = None
        self.stat_fd: int | None = None  # /proc/PID/stat of the harness, to count its threads
        self.stopped = False
        self.cgroup: cgroups.Cgroup | None = None
        self.killed = False
        self.deadline = 0.0  # of the request in progress (perf_counter time)
        uid, gid, switch = limits.identity()
        runtime = python_runtime()
        stage = None
        if switch and not reachable(runtime.executable, uid, {gid}):
            stage = (runtime.prefix, str(workdir / "runtime"))
        if switch and limits.use_cgroups:
            self.cgroup = cgroups.create(f"sbx-{os.getpid()}-{workdir.name}", limits.memory_bytes, limits.processes + 8)
        seccomp_fd = seccomp.filter_fd()
        info_read, info_write = os.pipe()
        command = BwrapCommand(
            bot_dir=str(workdir / "bot"),
            harness_dir=str(workdir / "harness"),
            empty_dir=str(workdir / "empty"),
            harness_args=[SANDBOX_BOT_DIR, *(f"{name}={value}" for name, value in limits.rlimits().items())],
            seccomp_fd=seccomp_fd,
            info_fd=info_write,
            scratch_bytes=limits.scratch_bytes,
            runtime=runtime,
            runtime_source=stage[1] if stage else None,
        )
        launcher = _Launcher(uid, gid, stage, self.cgroup.procs_files if self.cgroup else []) if switch else None
        try:
            self.process = subprocess.Popen(
                command.argv(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(seccomp_fd, info_write),
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
                cwd="/",
                preexec_fn=launcher,
                start_new_session=True,
            )
        except (OSError, subprocess.SubprocessError) as error:
            os.close(info_read)
            self._remove_cgroup()
            raise SandboxUnavailable(f"cannot start the sandbox: {error}") from error
        finally:
            os.close(seccomp_fd)
            os.close(info_write)
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
                self.stat_fd = os.open(f"/proc/{child}/stat", os.O_RDONLY)
            except OSError:
                pass  # it is already gone; killing bwrap itself is then enough

    # -- requests --------------------------------------------------------------------------------
    def request(self, message: dict[str, Any] | None, timeout: float) -> tuple[dict[str, Any], float]:
        """Send one request (None: send nothing, await the harness's announcement) and wait for its reply.

        Raises BotFailure, after which the sandbox is dead.
        """
        started = time.perf_counter()
        deadline = self.deadline = started + timeout
        kind = message["type"] if message is not None else protocol.ANNOUNCE
        if self.buffer:
            extra = protocol.preview(self.buffer)
            self._fail(Termination.PROTOCOL_ERROR, f"unrequested output before {kind!r}: {extra}")
        data = memoryview(protocol.encode(message) if message is not None else b"")
        if self.stopped:
            self._signal(signal.SIGCONT)
            self.stopped = False
        data = self._write(data, kind)  # usually all of it: the harness is waiting to read
        if data:
            self.poller.register(self.stdin, select.POLLOUT)
        line = None
        while line is None:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                if not self.announced:  # no code of the bot's has run yet: the host is at fault
                    self.kill()
                    raise SandboxUnavailable(f"the sandbox did not start within {timeout:.3f}s")
                self._fail(Termination.TIMEOUT, f"no reply to {kind!r} within {timeout:.3f}s")
            for fd, _ in self.poller.poll(remaining * 1000 + 1):  # ms, rounded up: never wake too early
                if fd == self.stdin:
                    data = self._write(data, kind)
                    if not data:
                        self.poller.unregister(self.stdin)
                elif fd == self.info_fd:
                    self._read_info()
                elif fd == self.stderr:
                    self.drain_log()
                elif fd == self.stdout and line is None:
                    line = self._read_line(kind)
        elapsed = time.perf_counter() - started
        try:
            reply = protocol.check_reply(protocol.decode(line, self.limits.reply_bytes), kind)
        except protocol.ProtocolError as error:
            self._fail(Termination.PROTOCOL_ERROR, f"reply to {kind!r}: {error}")
        self.announced = True
        if message is not None and self._threaded():
            # A bot with threads is stopped between its turns, so that no background work can slow the
            # other bots of the match down. (A single thread is idle there anyway: stopping it would only
            # cost latency.)
            self._signal(signal.SIGSTOP)
            self.stopped = True
        return reply, elapsed

    def _threaded(self) -> bool:
        if self.stat_fd is None:
            return False
        try:
            fields = os.pread(self.stat_fd, 1024, 0).rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return False
        return int(fields[17]) > 1  # num_threads, the 20th field of /proc/PID/stat

    def _signal(self, signum: int) -> None:
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signum)
            except ProcessLookupError:
                pass  # it has exited; the next read sees that

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
        line, newline, rest = self.buffer.partition(b"\n")
        if not newline:
            if len(self.buffer) > self.limits.reply_bytes:
                cap = self.limits.reply_bytes
                self._fail(Termination.PROTOCOL_ERROR, f"reply to {request_type!r} exceeds {cap} bytes unterminated")
            return None
        self.buffer = rest
        return line

    # -- failure and teardown --------------------------------------------------------------------
    def _fail(self, termination: Termination, detail: str) -> None:
        self.kill()
        raise BotFailure(termination, detail, self.log_tail())

    def _died(self, request_type: str) -> None:
        """The sandbox closed its end: find out how it ended and raise the matching failure."""
        try:  # it is exiting, or has closed its pipe and must not make us wait past its deadline
            status = self.process.wait(timeout=min(REAP_SECONDS, max(self.deadline - time.perf_counter(), 0.05)))
        except subprocess.TimeoutExpired:
            status = None
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
        if self.process.poll() is None:
            try:
                self.process.wait(timeout=REAP_SECONDS)
            except subprocess.TimeoutExpired:
                pass
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
        for fd in (self.pidfd, self.info_fd, self.stat_fd):
            if fd is not None:
                os.close(fd)
        self.pidfd = self.info_fd = self.stat_fd = None
        self._remove_cgroup()

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
