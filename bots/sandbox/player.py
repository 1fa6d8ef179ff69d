"""SandboxedPlayer: one untrusted bot in a bubblewrap sandbox, spoken to over the line protocol.

One sandbox serves a whole match, so a bot's module globals persist across games, until `forget` starts the bot over
in it (a duplicate match's second half). Every wait has a deadline; past it the sandbox is killed at once and reaped
(see process.py). A sandbox that was killed is started afresh at the next game.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from bots import protocol, reply_bounds
from bots.players import BotFailure
from bots.sandbox import pool, seccomp, workdirs
from bots.sandbox.bwrap import SandboxUnavailable, bwrap_path
from bots.sandbox.limits import STARTUP_SECONDS, SandboxLimits
from bots.sandbox.process import PidsMovedOn, SandboxProcess
from bots.sandbox.unpack import UnpackLimits, bot_version
from games import Termination

HARNESS_SOURCE = Path(__file__).with_name("harness.py")
HELLO = {"type": "hello", "version": protocol.PROTOCOL_VERSION}
PROTOCOL_SOURCE = Path(protocol.__file__)


def _failure(termination: Termination, reply: dict[str, Any], sandbox: SandboxProcess, prefix: str = "") -> BotFailure:
    """The failure an error reply of the harness reports. Its detail, which quotes the bot's exception (or the
    bot's reply that could not be sent), goes to the bot's log for its owner; the public game log only says
    where it raised and what type of exception, or that the reply was not JSON."""
    detail = reply["detail"]
    if termination == Termination.PROTOCOL_ERROR:
        public = "its reply is not JSON-serialisable (why is in the bot's log)"
        return BotFailure(termination, prefix + public, sandbox.log_tail() + f"\n{detail}\n")
    return BotFailure(termination, prefix + reply_bounds.public_error(detail), sandbox.log_tail())


class SandboxedPlayer:
    """A bot from an uploaded .py or .zip, run in a sandbox; implements bots.players.Player."""

    def __init__(
        self,
        bot_file: str | os.PathLike[str],
        name: str | None = None,
        version: str | None = None,
        limits: SandboxLimits | None = None,
        temp_root: str | None = None,
        unpack_limits: UnpackLimits | None = None,
        reuse: bool = False,
    ) -> None:
        self.bot_file = Path(bot_file)
        self.name = name or self.bot_file.name
        self.version = version or bot_version(self.bot_file)
        self.limits = limits or SandboxLimits()
        self.temp_root = temp_root
        self.unpack_limits = unpack_limits
        self.startup_timeout = STARTUP_SECONDS
        self._workdir: Path | None = None
        self._sandbox: SandboxProcess | None = None
        self._boot_window: tuple[float, float] | None = None  # (launched, deadline) of a boot under way
        self._has_new_game = True  # the bot defines new_game(), as its harness said when it loaded
        self.reuse = reuse  # start in a kept sandbox of this upload's, and keep this one at close (pool.py)

    def launch(self, timeout: float) -> None:
        """Begin starting the bot, without waiting: start() finishes, while other sandboxes boot meanwhile."""
        if self._boot_window is not None:
            return
        bwrap_path()
        if not seccomp.available():
            raise SandboxUnavailable(seccomp.MISSING_LIBRARY)
        self.startup_timeout = timeout
        if self._workdir is None:
            self._workdir = workdirs.acquire(self.bot_file, self.limits, self.unpack_limits, self.temp_root)
        kept = pool.take(self._pool_key()) if self.reuse and self._sandbox is None else None
        if kept is None:
            self._spawn(timeout)
            return
        self._sandbox = kept
        self._await_new_harness(timeout)

    def _pool_key(self) -> tuple[str, SandboxLimits]:
        return str(self._workdir), self.limits

    def boot(self) -> None:
        """Put the launched bot into its sandbox once bwrap has built it, and let it load, without waiting for it:
        a match launches every seat's sandbox before booting the first, so that their builds overlap."""
        if self._boot_window is not None and not self._sandbox.joined:
            try:
                self._sandbox.send(HELLO)  # joins first; the reply is read once it has announced
            except PidsMovedOn:  # its last bot could tell this one a number (process.py): a new sandbox instead
                earlier = self._sandbox.take_log()
                self._spawn(self.startup_timeout)
                self._sandbox._keep_log(earlier.encode())
                self._sandbox.send(HELLO)

    def start(self, timeout: float) -> None:
        """Load the bot (finishing a launch() if one is under way) within `timeout` seconds of its launch."""
        self.launch(timeout)
        self._finish_boot()

    def _spawn(self, timeout: float) -> None:
        if self._sandbox is not None:
            self._sandbox.kill()  # started again while running: the old sandbox must not be left behind
        started = time.perf_counter()
        self._sandbox = SandboxProcess(self._workdir, self.limits, timeout)  # bwrap builds it; boot() joins it
        self._boot_window = (started, started + timeout)

    def _finish_boot(self) -> None:
        """Await the harness's announcement and its reply to hello, both by the launch's deadline."""
        self.boot()
        started, deadline = self._boot_window
        self._boot_window = None
        sandbox = self._sandbox
        sandbox.receive(protocol.ANNOUNCE, started, deadline)
        reply, _ = sandbox.receive("hello", started, deadline)
        self._has_new_game = reply.get("new_game") is not False
        if reply["type"] == "error":
            sandbox.kill()
            termination = Termination.RESOURCE_LIMIT if reply["kind"] == "resource-limit" else Termination.CRASH
            raise _failure(termination, reply, sandbox, "the bot failed to load: ")

    def forget(self) -> bool:
        """Start the bot over in its sandbox: a new harness, with a new /tmp, loads it again at its next request,
        within the start-up allowance. False where there is no running bot to start over (a sandbox not yet booted,
        or killed after a failure: the next game starts a new one anyway)."""
        sandbox = self._sandbox
        if sandbox is None or sandbox.killed or self._boot_window is not None or not sandbox.joined:
            return False
        try:
            sandbox.end_harness()
        except SandboxUnavailable:
            return False  # killed: the next game starts a new sandbox
        self._await_new_harness(self.startup_timeout)
        return True

    def _await_new_harness(self, timeout: float) -> None:
        """A new harness joins the sandbox, whose last one has ended, at boot() (with a new /tmp), and must have
        loaded the bot within `timeout` seconds from now."""
        started = time.perf_counter()
        self._sandbox.start_again(timeout)
        self._boot_window = (started, started + timeout)

    def _live(self) -> SandboxProcess:
        if self._workdir is None:
            raise RuntimeError(f"{self.name}: start() was not called")
        if self._boot_window is not None:
            self._finish_boot()
        elif self._sandbox is None or self._sandbox.killed:
            # killed after an earlier failure: a fresh sandbox for the next game, under the start-up allowance
            previous = self._sandbox.take_log() if self._sandbox is not None else ""
            self._spawn(self.startup_timeout)
            self._finish_boot()
            self._sandbox._keep_log(previous.encode())
        return self._sandbox

    def _call(self, message: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        sandbox = self._live()
        reply, elapsed = sandbox.request(message, timeout)
        if reply["type"] == "error":
            kind = reply["kind"]
            if kind == "protocol":
                raise _failure(Termination.PROTOCOL_ERROR, reply, sandbox)
            if kind == "resource-limit":
                sandbox.kill()
                raise _failure(Termination.RESOURCE_LIMIT, reply, sandbox)
            raise _failure(Termination.CRASH, reply, sandbox)
        return reply, elapsed

    def new_game(self, info: dict[str, Any], timeout: float) -> None:
        if self._live() and self._has_new_game:  # a bot without new_game() is not asked (a round trip saved)
            self._call({"type": "new_game", "info": info}, timeout)

    def play(self, observation: dict[str, Any], timeout: float) -> tuple[Any, float]:
        reply, elapsed = self._call({"type": "play", "observation": observation}, timeout)
        return reply["turn"], elapsed

    @property
    def sandbox_pid(self) -> int | None:
        """PID 1 of the running sandbox as the host sees it (its PID namespace dies with it), or None."""
        sandbox = self._sandbox
        if sandbox is None or sandbox.killed:
            return None
        return sandbox.child_pid

    def take_stderr(self) -> str:
        return self._sandbox.take_log() if self._sandbox is not None else ""

    def begin_close(self) -> None:
        """Kill the sandbox without waiting for it to go (close() does): a match ends its sandboxes together. One
        to be kept has its harness ended by close()."""
        if self._sandbox is not None and not self._keepable():
            self._sandbox.send_kill()

    def close(self) -> None:
        if self._keepable() and self._keep():
            return
        self._boot_window = None
        if self._sandbox is not None:
            self._sandbox.kill()
        if self._workdir is not None:
            workdirs.release(self._workdir)
            self._workdir = None

    def _keep(self) -> bool:
        """End the bot's harness and keep its sandbox, with this player's hold on its directory, for the next start."""
        try:
            self._sandbox.end_harness()
        except SandboxUnavailable:
            return False  # killed instead
        pool.keep(self._pool_key(), self._sandbox, self._workdir)
        self._sandbox = self._workdir = None
        return True

    def _keepable(self) -> bool:
        """Whether the sandbox may serve this upload's next start: asked to be, and running the bot it booted."""
        sandbox = self._sandbox
        return (
            self.reuse and sandbox is not None and not sandbox.killed and sandbox.joined and self._boot_window is None
        )

    def __enter__(self) -> SandboxedPlayer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
