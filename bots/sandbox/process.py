"""One running sandbox: bubblewrap's namespaces, the harness the fork server put into them, pipes, deadlines, and a
kill that leaves nothing behind.

bubblewrap builds the sandbox (its namespaces, its file system, its /tmp) exactly as it would for running the harness
itself, and holds its child blocked just before the exec (`--block-fd`); that child is PID 1 of the sandbox's PID
namespace and never runs anything. The runner hands the sandbox's namespaces to its fork server (forkserver.py,
zygote.py), which forks the harness into them, PID 2; the harness is put into the sandbox's cgroups before it runs
anything of the bot's. Launching a sandbox only starts bwrap and `join` waits for its build, so a match launches
both seats' sandboxes before it joins the first: their builds overlap. SIGKILL to PID 1 (through a pidfd, immune to
PID reuse) ends every process of the sandbox at once; bwrap then exits and is reaped by the fork server's launcher,
and the fork server reports how the harness ended on the sandbox's info socket.

The runner does not start bwrap itself: its fork server's launcher does (posix_spawn), which already runs as the
sandbox's uid where the Python runtime is reachable (staging.py), so no helper program (`nsenter`, `setpriv`,
`unshare`) has to be started first to get there (on a virtual machine, each program started costs the best part of
a millisecond of CPU). bwrap runs unprivileged, as that uid, and makes the sandbox's user namespaces itself, inside
the fork server's. It is the launcher's child, which reaps it; the runner watches it through a pidfd.

A sandbox outlives its harness when the bot starts over in it (`end_harness`, a duplicate match's mirror half, a kept
sandbox's next match): its next harness is PID 2 + the harnesses before it, unless a bot started threads there, each of
which took the next PID of the sandbox. No harness's end resets the PID counter, so a bot could count a number into
it for the next harness to read off its own PID; such a sandbox is not used again (`PidsMovedOn`: the bot starts over
in a new one instead). Nor is one whose network namespace still holds a Unix socket once its harness has ended (one
put in flight in a cycle of descriptors outlives its process, bound to its name, until the kernel collects it).

A turn ends when the harness has replied and stopped itself (harness.py): the runner reads the reply, checks in
/proc that every thread of the process is stopped, and only then goes on; with the next request it checks that the
sandbox stayed stopped and sends SIGCONT (pause.py).
"""

from __future__ import annotations

import itertools
import json
import os
import select
import signal
import socket
import time
from pathlib import Path
from typing import Any

from bots import protocol
from bots.players import BotFailure
from bots.sandbox import cgroups, forkserver, pause, scheduling, scratch, seccomp, staging
from bots.sandbox.bwrap import (
    BWRAP_FDS,
    LAUNCH_PATH,
    BwrapCommand,
    SandboxUnavailable,
    python_runtime,
    reachable,
)
from bots.sandbox.limits import SandboxLimits
from games import Termination

TAIL_CHARS = 2000  # of the log, attached to a failure
REAP_SECONDS = 5.0
YIELDS_BEFORE_SLEEPING = 50  # while a harness that has replied is on its way to stopping (microseconds, usually)
EXIT_GRACE_SECONDS = 0.05  # for every thread of a process whose main thread has exited to be gone
FIRST_HARNESS_PID = 2  # in the sandbox's PID namespace: bwrap's blocked child is PID 1


class PidsMovedOn(SandboxUnavailable):
    """A bot started threads in this sandbox before its harness ended: the next harness's PID would carry their
    number. The sandbox is killed; the bot starts over in a new one."""


_sandbox_numbers = itertools.count(1)  # this process's sandboxes, in the order started (their cgroups' names)


class SandboxProcess:
    """One running sandbox: bwrap, the harness in it, pipes, deadlines, kill and reap."""

    def __init__(self, workdir: Path, limits: SandboxLimits, startup_seconds: float = REAP_SECONDS) -> None:
        self.limits = limits
        self.log = bytearray()
        self.log_dropped = 0
        self.buffer = b""
        self.outgoing = memoryview(b"")  # the part of the current request not yet written
        self.stopped = False  # the harness stopped itself after its last reply
        self.cgroup: cgroups.Cgroup | None = None
        self.killed = False
        self.kill_sent = False  # SIGKILL sent (send_kill); killed: also reaped and released
        self.deadline = 0.0  # of the request in progress (perf_counter time)
        self.announced = False  # the harness has spoken: from here on, everything is the bot's doing
        self.exit_status: int | None = None  # the harness's, as the fork server reported it
        self.join_error: str | None = None  # why the harness could not join the sandbox, as it reported it
        self.pidfd: int | None = None  # the harness's
        self.init_pidfd: int | None = None  # PID 1's (bwrap's blocked child): SIGKILL to it ends the sandbox
        self.child_pid: int | None = None  # the harness, as the host sees it
        self.init_pid: int | None = None
        self.stat_fd: int | None = None  # /proc/<harness>/stat, read for its state
        self.cpu_clock: int | None = None  # the harness's CPU time (pause.cpu_clock)
        self.cpu_at_stop: int | None = None  # its value when the last turn ended, in nanoseconds
        self.status_fd: int | None = None  # the fork server's reports: a SOCK_SEQPACKET socket, one JSON message each
        self.reports_ended = False  # closed: after the harness's exit report, or by the fork server's death
        self.stdin = self.stdout = self.stderr = None
        self.stderr_open = False
        self.poller = select.poll()
        self.log_waiter = select.poll()  # the log pipe alone: whether it has anything to read
        self.joined = False  # the harness is in the sandbox (join)
        self.bwrap_pid: int | None = None  # a child of the fork server's launcher
        self.bwrap_pidfd: int | None = None
        self.bwrap_errors_fd: int | None = None  # what bwrap says on stderr (why it could not build the sandbox)
        self.bwrap_info_fd: int | None = None  # bwrap's info pipe, until it has said where PID 1 is
        self.admit_fd: int | None = None  # a byte on it lets the harness run the bot, once it is in its cgroups
        self.respawned = False  # the harness is not the sandbox's first: it gets a new /tmp (respawn)
        self.harnesses = 0  # forked into the sandbox so far
        uid, gid, switch = limits.identity()
        self.startup_deadline = time.perf_counter() + startup_seconds
        scheduling.wait_without_preempting()  # before the fork server starts: it inherits the policy
        if switch and limits.use_cgroups:
            # one group per sandbox: the sandboxes of one upload share its directory (workdirs.py), not their groups
            name = f"{cgroups.GROUP_PREFIX}{os.getpid()}-{next(_sandbox_numbers)}"
            self.cgroup = cgroups.create(name, limits.memory_bytes, limits.processes + 8)
        if limits.require_cgroups and self.cgroup is None:
            raise cgroups.unavailable(root_runner=switch)
        try:
            self._launch_bwrap(workdir, uid, gid, switch)
        except BaseException:
            self.kill()
            raise

    def join(self) -> None:
        """Put the harness into the sandbox once bwrap has built it, by the start-up deadline. bwrap builds it
        meanwhile, so a runner that launches several sandboxes before joining the first waits for their builds
        (namespaces, mounts, the kernel's grace periods) at once, not one after the other. Idempotent."""
        if self.joined:
            return
        if self.killed:
            raise SandboxUnavailable("the sandbox was closed before the harness could join it")
        uid, gid, switch = self.limits.identity()
        try:
            self._join(forkserver.fork_server(uid, gid, switch), self.startup_deadline)
        except BaseException:
            self.kill()
            raise
        self.joined = True

    def _launch_bwrap(self, workdir: Path, uid: int, gid: int, switch: bool) -> None:
        runtime = python_runtime()
        staged = None
        if switch and not reachable(runtime.executable, uid, {gid}):
            staged = staging.staged_runtime(runtime.prefix, uid, gid)
        server = forkserver.fork_server(uid, gid, switch)  # as the sandbox's uid, where the runtime is reachable
        self.bwrap_info_fd, info_write = os.pipe2(os.O_CLOEXEC)
        self.bwrap_errors_fd, errors_write = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(self.bwrap_errors_fd, False)
        # bwrap's child waits on it for good: the runner never writes, and closes it only once PID 1 is dead
        block_read, self.block_fd = os.pipe2(os.O_CLOEXEC)
        seccomp_fd = seccomp.filter_fd()
        command = BwrapCommand(
            bot_dir=str(workdir / "bot"),
            empty_dir=str(workdir / "empty"),
            seccomp_fd=BWRAP_FDS["seccomp"],
            info_fd=BWRAP_FDS["info"],
            block_fd=BWRAP_FDS["block"],
            uid=uid,
            gid=gid,
            runtime=runtime,
            runtime_source=staged.path if staged else None,
        )
        fds = {"stderr": errors_write, "seccomp": seccomp_fd, "info": info_write, "block": block_read}
        try:
            # the fork server starts it: no nsenter or setpriv to exec first, and nothing of this process to copy
            self.bwrap_pid, self.bwrap_pidfd = server.launch(
                command.argv(), {"PATH": LAUNCH_PATH, "LC_ALL": "C"}, fds, BWRAP_FDS
            )
        finally:
            for fd in fds.values():
                os.close(fd)

    def _bwrap_info(self, deadline: float) -> int:
        """PID 1 of the sandbox, once bwrap has built it (it says so on its info pipe)."""
        info = b""
        waiter = select.poll()
        waiter.register(self.bwrap_info_fd, select.POLLIN)
        try:
            while b"}" not in info:
                remaining = deadline - time.perf_counter()
                if remaining <= 0 or not waiter.poll(remaining * 1000 + 1):
                    raise SandboxUnavailable(f"the sandbox was not built in time: {self._bwrap_errors()}")
                data = os.read(self.bwrap_info_fd, 4096)
                if not data:
                    raise SandboxUnavailable(f"bwrap could not build the sandbox: {self._bwrap_errors()}")
                info += data
        finally:
            os.close(self.bwrap_info_fd)
            self.bwrap_info_fd = None
        return json.loads(info)["child-pid"]

    def _bwrap_errors(self) -> str:
        """What bwrap said on stderr, once it has exited (it says why it could not build the sandbox)."""
        if not _exited(self.bwrap_pidfd, 0.5):
            return "bwrap is still running"
        try:
            return os.read(self.bwrap_errors_fd, 4096).decode("utf-8", "replace").strip()
        except BlockingIOError:
            return "bwrap exited without a word"

    def start_again(self, startup_seconds: float) -> None:
        """Give the next harness (joined at the next request) `startup_seconds` from now to load the bot."""
        self.startup_deadline = time.perf_counter() + startup_seconds

    def built(self) -> bool:
        """Whether the sandbox itself (bwrap and its PID 1) is still there for another harness."""
        return not self.killed and not _exited(self.init_pidfd) and not _exited(self.bwrap_pidfd)

    def end_harness(self) -> None:
        """Kill the harness alone and forget it: the sandbox stays, with nothing of the bot running in it, and the
        next harness to join it gets a new /tmp. Raises SandboxUnavailable (the sandbox killed) if it did not end."""
        if not self.joined or self.killed:
            raise SandboxUnavailable("only a sandbox whose harness has joined it can start another")
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self._wait_exit(REAP_SECONDS) is None:  # its end reported: the fork server has reaped it
            self.kill()
            raise SandboxUnavailable("the sandbox's harness did not end when it was told to")
        if self._sockets_left():
            self.kill()
            raise SandboxUnavailable("the bot's Unix sockets outlived it (descriptors in flight): not used again")
        self.drain_log()
        self._close("stdin", "stdout", "stderr", "stat_fd", "pidfd")
        self.poller = select.poll()
        self.log_waiter = select.poll()
        self.stderr_open = self.joined = self.announced = self.stopped = self.reports_ended = False
        self.buffer, self.outgoing = b"", memoryview(b"")
        self.exit_status = self.join_error = self.child_pid = self.cpu_clock = self.cpu_at_stop = None
        self.respawned = True

    def _sockets_left(self) -> bool:
        """Whether a Unix socket is left in the sandbox's network namespace, whose harness has ended (its descriptors
        closed): one the bot put in flight in a cycle of descriptors lives on, bound to its name, until the kernel's
        collector finds it, and the next harness could find it by that name. True where the table cannot be read."""
        try:
            with open(f"/proc/{self.init_pid}/net/unix", "rb") as table:
                return len(table.read().splitlines()) > 1  # its heading, then a line per socket
        except OSError:
            return True

    def _join(self, server: forkserver.ForkServer, deadline: float) -> None:
        """Have the fork server put the harness into the sandbox, in its cgroups; set up its pipes and pidfds."""
        if self.init_pid is None:  # the sandbox's first harness
            self.init_pid = self._bwrap_info(deadline)
            self.init_pidfd = os.pidfd_open(self.init_pid)
            if not self._is_bwraps_child(self.init_pid):  # bwrap reaps its child: the PID may be another's by now
                raise SandboxUnavailable(f"the sandbox ended as it was built: {self._bwrap_errors()}")
        sandbox_fds: dict[str, int] = {}
        try:
            # the fork server opens the sandbox's namespaces by PID; these tell it that neither was reused
            sandbox_fds["bwrap"] = os.dup(self.bwrap_pidfd)
            sandbox_fds["init"] = os.dup(self.init_pidfd)
            sandbox_fds["requests"], self.stdin = os.pipe2(os.O_CLOEXEC)
            self.stdout, sandbox_fds["replies"] = os.pipe2(os.O_CLOEXEC)
            self.stderr, sandbox_fds["stderr"] = os.pipe2(os.O_CLOEXEC)
            reports, reporter = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self.status_fd, sandbox_fds["info"] = reports.detach(), reporter.detach()
            os.set_inheritable(self.status_fd, False)
            if self.cgroup is not None:
                sandbox_fds["admit"], self.admit_fd = os.pipe2(os.O_CLOEXEC)
            settings = [f"{name}={value}" for name, value in self.limits.rlimits().items()]
            sandbox = {
                "init_pid": self.init_pid,
                "tmp": scratch.remount_options(self.limits.scratch_bytes, self.limits.scratch_files),
                "fresh_tmp": self.respawned,
                "timeout": deadline - time.perf_counter(),
            }
            # bwrap and PID 1 into the cgroups while the fork server forks the harness into the sandbox: a cgroup v1
            # move waits for an RCU grace period, which the fork server's work then overlaps, and the harness's own
            # move soon after finds it passed
            moving = self.cgroup is not None and not self.respawned  # a respawn's sandbox is in them already
            enter = (lambda: self._enter_cgroup((self.bwrap_pid, self.init_pid))) if moving else None
            server.spawn(sandbox_fds, bot_dir="/bot", settings=settings, sandbox=sandbox, meanwhile=enter)
        finally:
            for fd in sandbox_fds.values():
                os.close(fd)
        for fd in (self.stdin, self.stdout, self.stderr, self.status_fd):
            os.set_blocking(fd, False)
            if fd != self.stdin:
                self.poller.register(fd, select.POLLIN)
        self.log_waiter.register(self.stderr, select.POLLIN)
        self.stderr_open = True
        self.child_pid, self.pidfd = self._await_harness(deadline)
        self.harnesses += 1
        if self.respawned and pid_in_sandbox(self.child_pid) != FIRST_HARNESS_PID + self.harnesses - 1:
            raise PidsMovedOn("a thread of an earlier bot moved the sandbox's PIDs on: the bot starts in a new one")
        try:
            self.stat_fd = os.open(f"/proc/{self.child_pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            pass  # it has ended, and been reaped, already
        self.cpu_clock = pause.cpu_clock(self.child_pid)
        if self.stat_fd is None or _exited(self.pidfd):  # opened by PID: only if it still runs is it its own
            raise SandboxUnavailable(f"the harness ended before it ran anything of the bot's: {self._why_ended()}")
        if self.admit_fd is not None:
            self._enter_cgroup((self.child_pid,))
            os.write(self.admit_fd, b"\n")  # the harness may go on: it runs nothing of the bot's outside its cgroups
            os.close(self.admit_fd)
            self.admit_fd = None

    def _is_bwraps_child(self, pid: int) -> bool:
        """Whether `pid` is (still) bwrap's child: bwrap is alive and is its parent."""
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        return parent == self.bwrap_pid and not _exited(self.bwrap_pidfd)

    def _await_harness(self, deadline: float) -> tuple[int, int]:
        """The fork server's first report: the harness's host PID and a pidfd on it (an error report says why it
        could not fork it)."""
        waiter = select.poll()
        waiter.register(self.status_fd, select.POLLIN)
        remaining = deadline - time.perf_counter()
        if remaining <= 0 or not waiter.poll(remaining * 1000 + 1):
            raise SandboxUnavailable("the fork server did not report the harness in time")
        with socket.socket(fileno=os.dup(self.status_fd)) as reports:
            data, pidfds, _, _ = socket.recv_fds(reports, 4096, 1, socket.MSG_CMSG_CLOEXEC)
        report = json.loads(data or b'{"error": "the fork server ended without a report"}')
        if "harness-pid" not in report or len(pidfds) != 1:
            for fd in pidfds:
                os.close(fd)
            raise SandboxUnavailable(f"the fork server could not put the bot into its sandbox: {report.get('error')}")
        return report["harness-pid"], pidfds[0]

    def _why_ended(self) -> str:
        """What a harness that ended before running anything of the bot's reported (why it could not join its
        sandbox), from the fork server's reports up to its exit report, awaited at most half a second."""
        self._wait_exit(0.5)
        return self.join_error or "it did not say why"

    def _enter_cgroup(self, pids: tuple[int, ...]) -> None:
        """Put `pids` (bwrap, PID 1, the harness held back before it runs anything of the bot's) into the cgroups."""
        try:
            for path in self.cgroup.procs_files:
                fd = os.open(path, os.O_WRONLY)
                try:
                    for pid in pids:
                        os.write(fd, str(pid).encode())
                finally:
                    os.close(fd)
        except OSError as error:  # e.g. it is gone already: nothing of the bot's has run
            raise SandboxUnavailable(f"cannot put the sandbox into its cgroups: {error}") from error

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
            if not self.log_waiter.poll(0):
                return  # nothing written (most turns): a poll costs a third of a read that fails
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
        if not self.log and not self.log_dropped:
            return ""
        text = self.log.decode("utf-8", "replace")
        if self.log_dropped:
            text = f"[... {self.log_dropped} earlier bytes of output dropped]\n" + text
        self.log.clear()
        self.log_dropped = 0
        return text

    def log_tail(self) -> str:
        self.drain_log()
        return self.log[-TAIL_CHARS:].decode("utf-8", "replace")

    # -- requests --------------------------------------------------------------------------------
    def request(self, message: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        """Send one request and wait for its reply and the harness's stop; the seconds it took are measured from
        the moment it was let run, plus any CPU time it had while it was held. Raises BotFailure, after which the
        sandbox is dead."""
        held = self.send(message)
        started = time.perf_counter() - held  # written while it was stopped: waking it up is not the bot's time
        return self.receive(message["type"], started, started + timeout)

    def send(self, message: dict[str, Any]) -> float:
        """Start writing one request (the rest is written while its reply is awaited), and let the harness run.
        Returns the seconds of CPU the sandbox had while it was held since its last turn, which that turn owes."""
        kind = message["type"]
        if not self.joined:
            self.join()
        if self.buffer:
            public = f"unrequested output before {kind!r}"
            self._fail(Termination.PROTOCOL_ERROR, public, f"{public}: {protocol.preview(self.buffer)}")
        stopped = self.stopped
        held = self._cpu_while_held(kind) if stopped else 0.0
        rest = self._write(protocol.encode_request(message), kind)  # usually all of it at once
        if rest:
            self.outgoing = memoryview(rest)
            self.poller.register(self.stdin, select.POLLOUT)
        if stopped:
            pause.resume(self.pidfd)
            self.stopped = False
        return held

    def _cpu_while_held(self, kind: str) -> float:
        """The seconds of CPU the sandbox has had since its last turn ended; a sandbox violation if it ran (more than
        the last moments of its stop take, or it is not stopped any more)."""
        now = pause.cpu_ns(self.cpu_clock)
        if now is None or self.cpu_at_stop is None or now == self.cpu_at_stop:
            return 0.0  # gone (the next read of its pipes says how it ended), or held as it should be
        grown = now - self.cpu_at_stop
        letter = pause.state(self.stat_fd, self.child_pid)
        if (grown > pause.RUN_WHILE_STOPPED_NS or letter not in (pause.STOPPED, None)) and not _exited(self.pidfd):
            self._fail(
                Termination.SANDBOX_VIOLATION,
                f"it ran while it was held between its turns ({grown / 1e9:.3f} s of CPU, and it was "
                f"{'stopped' if letter == pause.STOPPED else 'running'} when {kind!r} was due)",
            )
        return grown / 1e9

    def receive(self, kind: str, started: float, deadline: float) -> tuple[dict[str, Any], float]:
        """Wait until `deadline` for the reply to the request of type `kind` (or ANNOUNCE) sent at `started`, and,
        but for the announcement, for the harness to stop. Both are perf_counter times. Returns the reply and the
        seconds from `started` to its stop."""
        self.deadline = deadline
        timeout = deadline - started
        line = self._buffered_line() if self.buffer else None  # it may have come in one read with the last reply
        while line is None:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                if not self.announced:  # no code of the bot's has run yet: the host is at fault
                    self.kill()
                    raise SandboxUnavailable(f"the sandbox did not start within {timeout:.3f}s")
                self._fail(Termination.TIMEOUT, f"no reply to {kind!r} within {timeout:.2f} s")
            for fd, _ in self.poller.poll(remaining * 1000 + 1):  # ms, rounded up: never wake too early
                if fd == self.stdout:
                    if line is None:
                        line = self._read_line(kind)
                elif fd == self.stdin:
                    self.outgoing = self._write(self.outgoing, kind)
                    if not self.outgoing:
                        self.poller.unregister(self.stdin)
                elif fd == self.stderr:
                    self.drain_log()
                elif fd == self.status_fd:
                    self._read_status()
        try:
            reply = protocol.check_reply(protocol.decode(line, self.limits.reply_bytes), kind)
        except protocol.ProtocolError as error:
            self._fail(Termination.PROTOCOL_ERROR, f"reply to {kind!r}: {error.public}", f"reply to {kind!r}: {error}")
        if kind != protocol.ANNOUNCE and not self._stopped_now():
            self._await_stop(kind, started, deadline)
        self.announced = True
        return reply, time.perf_counter() - started

    def _stopped_now(self) -> bool:
        """Whether the harness, single-threaded, is stopped already (as it usually is once its reply is read): then the
        turn has ended, and its CPU time is noted. The common case of _await_stop, at the cost of one read of /proc."""
        if pause.stopped_alone(self.stat_fd):
            self.stopped = True
            self.cpu_at_stop = pause.cpu_ns(self.cpu_clock)
            return True
        return False

    def _await_stop(self, kind: str, started: float, deadline: float) -> None:
        """Wait for the harness to stop itself after its reply: until then, whatever it runs is still its turn.

        It stops a few microseconds after writing, usually before the runner has even read the reply; if this
        runner woke up on its CPU first, yielding lets it get there. A thread still busy in the kernel stops once it
        is back (pause.state waits for every thread). A bot that tampers with the harness so that it never stops, or
        keeps a thread from stopping, runs out its turn's time instead."""
        for attempt in range(1 << 30):
            state = pause.state(self.stat_fd, self.child_pid)
            if state == pause.STOPPED:
                self.stopped = True
                self.cpu_at_stop = pause.cpu_ns(self.cpu_clock)
                return
            if state is None or state in "ZX":
                # an exiting process; or its main thread ended alone (raw exit(2)) while others run on
                if _exited(self.pidfd, EXIT_GRACE_SECONDS):
                    return  # the next read of its pipes says how it ended
                self._fail(Termination.CRASH, "its main thread ended while its other threads ran on")
            if time.perf_counter() >= deadline:
                self._fail(Termination.TIMEOUT, f"still running {time.perf_counter() - started:.2f} s after its "
                           f"reply to {kind!r} (the limit was {deadline - started:.2f} s)")  # fmt: skip
            if attempt < YIELDS_BEFORE_SLEEPING:
                os.sched_yield()
            else:
                time.sleep(max(0.0, min(0.001, deadline - time.perf_counter())))

    def _write(self, data: bytes | memoryview, request_type: str) -> bytes | memoryview:
        """Write what the pipe takes now; the rest."""
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
        self.buffer = self.buffer + chunk if self.buffer else chunk
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
        """The harness closed its end: find out how it ended and raise the matching failure."""
        # it is exiting, or has closed its pipe and must not make us wait past its deadline
        status = self._wait_exit(min(REAP_SECONDS, max(self.deadline - time.perf_counter(), 0.05)))
        oom = self.cgroup is not None and self.cgroup.oom_killed()
        self.kill()
        if not self.announced:  # it died before running any of the bot's code: the host failed
            why = self.join_error or self.log_tail()
            raise SandboxUnavailable(f"the sandbox could not start (exit {status}): {why}")
        if status is None and self.reports_ended:  # the fork server died: not the bot's doing
            raise SandboxUnavailable(f"the sandbox's fork server ended while handling {request_type!r}")
        termination, detail = _classify(status, oom)
        raise BotFailure(termination, f"the sandbox {detail} while handling {request_type!r}", self.log_tail())

    def _read_status(self) -> None:
        try:
            data = os.read(self.status_fd, 4096)  # one report
        except BlockingIOError:
            return
        if data:
            report = json.loads(data)
            self.exit_status = report.get("exit", self.exit_status)
            self.join_error = report.get("error", self.join_error)
        if not data or self.exit_status is not None:
            self.reports_ended = True
            self.poller.unregister(self.status_fd)
            os.close(self.status_fd)
            self.status_fd = None

    def _wait_exit(self, timeout: float) -> int | None:
        """The harness's exit status (as bwrap would pass it on) once the fork server has reported it, or None."""
        deadline = time.perf_counter() + timeout
        waiter = select.poll()
        if self.status_fd is not None:
            waiter.register(self.status_fd, select.POLLIN)
        while self.exit_status is None and self.status_fd is not None:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or not waiter.poll(remaining * 1000 + 1):
                break
            self._read_status()
        return self.exit_status

    def send_kill(self) -> None:
        """SIGKILL the whole sandbox without waiting for it to go: kill() reaps it. A runner ending several sandboxes
        signals them all first, so that their exits (address spaces, namespaces, mounts) overlap."""
        if self.kill_sent:
            return
        self.kill_sent = True
        for pidfd in (self.pidfd, self.init_pidfd):  # PID 1's death ends its PID namespace, the harness included
            if pidfd is not None:
                try:
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.init_pidfd is None and self.bwrap_pidfd is not None and not _exited(self.bwrap_pidfd):
            # PID 1 unknown yet: bwrap's child may be anywhere in its build, and it takes no parent-death signal
            # before its exec (which ours never reaches), so bwrap's death alone would leave it waiting for good. Until
            # its last step it is in bwrap's process group, which bwrap leads (a new session): a group that holds its
            # number for as long as either of them lives, so no other process can have it
            try:
                os.killpg(self.bwrap_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL the whole sandbox, reap it and release everything it held. Idempotent."""
        if self.killed:
            return
        self.killed = True
        self.send_kill()
        for pidfd in (self.pidfd, self.init_pidfd):
            if pidfd is not None:
                _exited(pidfd, REAP_SECONDS)  # gone, so its cgroups can be removed
        if self.bwrap_pidfd is not None and not _exited(self.bwrap_pidfd, REAP_SECONDS):  # it ends with PID 1
            try:
                signal.pidfd_send_signal(self.bwrap_pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _exited(self.bwrap_pidfd, REAP_SECONDS)  # the fork server's launcher, its parent, reaps it
        self.drain_log()
        self.stderr_open = False
        self._close("stdin", "stdout", "stderr", "status_fd", "stat_fd", "pidfd", "init_pidfd", "bwrap_pidfd")
        self._close("block_fd", "bwrap_info_fd", "bwrap_errors_fd", "admit_fd")
        self._remove_cgroup()

    def _close(self, *names: str) -> None:
        """Close the descriptors these attributes hold, if they hold one, and forget them."""
        for name in names:
            fd = getattr(self, name, None)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None


def pid_in_sandbox(host_pid: int) -> int | None:
    """The PID a process has in its own (innermost) PID namespace, or None once it is gone."""
    try:
        with open(f"/proc/{host_pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError):
        return None
    return None


def _exited(pidfd: int, timeout: float = 0.0) -> bool:
    """Whether the process has exited (its pidfd is readable), waiting at most `timeout` seconds for it."""
    waiter = select.poll()
    waiter.register(pidfd, select.POLLIN)
    return bool(waiter.poll(timeout * 1000 + 1 if timeout else 0))


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
