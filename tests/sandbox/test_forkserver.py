"""The fork server (bots/sandbox/zygote.py, forkserver.py): what it is, what its copies are, and that it recovers."""

from __future__ import annotations

import os
import select
import signal
from pathlib import Path

import pytest

from bots.players import BotFailure
from bots.sandbox import SandboxedPlayer, SandboxUnavailable, forkserver
from bots.sandbox.bwrap import python_runtime
from bots.sandbox.limits import SandboxLimits
from games import Termination

CAP_SYS_ADMIN = 21

WHO_AM_I = """
import os, random, sys
def play(observation):
    return {"plays": [], "pid": os.getpid(), "random": random.random(), "random_file": random.__file__,
            "environment": dict(os.environ), "path": sys.path, "cwd": os.getcwd()}
"""

# The bot keeps its harness from stopping after the reply: it goes on running outside what the runner saw.
NEVER_STOPS = """
import os
def play(observation):
    os.kill = lambda pid, signum: None
    return {"plays": []}
"""


@pytest.fixture
def who_am_i(tmp_path: Path) -> Path:
    bot = tmp_path / "bot.py"
    bot.write_text(WHO_AM_I)
    return bot


def _server() -> forkserver.ForkServer:
    uid, gid, switch = SandboxLimits().identity()
    return forkserver.fork_server(uid, gid, switch)


def test_each_bot_is_a_fresh_copy_seen_from_inside(sandbox_works, who_am_i):
    replies = []
    for _ in range(2):
        with SandboxedPlayer(who_am_i) as player:
            player.start(10)
            replies.append(player.play({}, 5)[0])
    first, second = replies
    assert first["pid"] == second["pid"] == 2  # PID 1 is bwrap's child, held before its exec
    assert first["random"] != second["random"]  # reseeded in every copy
    # bwrap's environment (and its PWD); LC_CTYPE is the interpreter's own, as in any started in the C locale
    assert first["environment"] == {
        "HOME": "/tmp", "TMPDIR": "/tmp", "MALLOC_ARENA_MAX": "2", "PWD": "/tmp", "LC_CTYPE": "C.UTF-8",
    }  # fmt: skip
    assert first["cwd"] == "/tmp"
    # modules loaded before the copy was made have the paths the sandbox shows, which are the runtime's own
    assert first["random_file"].startswith(python_runtime().stdlib + "/")
    assert all(not entry.startswith("/dev/shm") for entry in first["path"]), first["path"]


def test_the_fork_server_runs_as_the_sandbox_with_nothing_of_the_runner(sandbox_works, who_am_i):
    with SandboxedPlayer(who_am_i) as player:
        player.start(10)
    server = _server()
    uid, gid, _ = SandboxLimits().identity()
    for pid in (server.process.pid, server.launcher_pid):
        status = _status(pid)
        assert status["Uid"] == [str(uid)] * 4 and status["Gid"] == [str(gid)] * 4
        environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert sorted(filter(None, environment)) == [b"HOME=/tmp", b"MALLOC_ARENA_MAX=2", b"TMPDIR=/tmp"]
        if os.geteuid() == 0:
            assert status["Groups"] == []
    # what capability it keeps is in a user namespace of its own, which owns nothing of the host's; the launcher,
    # which starts every bwrap, keeps none
    assert os.readlink(f"/proc/{server.process.pid}/ns/user") != os.readlink("/proc/self/ns/user")
    assert _status(server.process.pid)["CapEff"] == [f"{1 << CAP_SYS_ADMIN:016x}"]
    assert _status(server.launcher_pid)["CapEff"] == ["0000000000000000"]


def _status(pid: int) -> dict[str, list[str]]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {line.split(":")[0]: line.split()[1:] for line in lines}


def test_a_dead_fork_server_is_started_again(sandbox_works, who_am_i):
    with SandboxedPlayer(who_am_i) as player:
        player.start(10)
    dead = _server()
    os.kill(dead.process.pid, signal.SIGKILL)
    dead.process.wait()
    with SandboxedPlayer(who_am_i) as player:
        player.start(10)
        assert player.play({}, 5)[0]["pid"] == 2
    assert _server() is not dead


def test_a_bot_that_keeps_running_after_its_reply_is_still_in_its_turn(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(NEVER_STOPS)
    with SandboxedPlayer(bot) as player:
        player.start(10)
        with pytest.raises(BotFailure) as failure:
            player.play({}, 0.3)
    assert failure.value.termination == Termination.TIMEOUT
    assert "after its reply to 'play'" in failure.value.detail


def test_a_fork_server_dying_mid_match_is_the_hosts_failure_not_the_bots(sandbox_works, who_am_i):
    with SandboxedPlayer(who_am_i) as player:
        player.start(10)
        player.play({}, 5)
        server = _server()
        os.kill(server.process.pid, signal.SIGKILL)  # its harnesses die with it
        server.process.wait()
        harness_ended = select.poll()
        harness_ended.register(player._sandbox.pidfd, select.POLLIN)
        assert harness_ended.poll(5000), "the harness outlived its fork server"
        with pytest.raises(SandboxUnavailable, match="fork server ended"):
            player.play({}, 5)


FROZEN = """
import gc
def play(observation):
    return {"plays": [], "frozen": gc.get_freeze_count(), "collecting": gc.isenabled()}
"""


def test_what_the_fork_server_imported_is_out_of_the_collectors_sight_in_every_copy(sandbox_works, tmp_path: Path):
    """gc.freeze() before serving: a harness's collections never walk (and so never copy, page by page) the objects
    it shares with the fork server; its own objects are collected as usual."""
    bot = tmp_path / "bot.py"
    bot.write_text(FROZEN)
    with SandboxedPlayer(bot) as player:
        player.start(10)
        reply = player.play({}, 5)[0]
    assert reply["frozen"] > 10_000  # the imports: typing, re, json, random, dataclasses, ...
    assert reply["collecting"] is True


def test_a_pool_process_ending_removes_its_fork_servers_folder(sandbox_works, who_am_i):
    from celery.signals import worker_process_shutdown

    import league.celery  # noqa: F401 - connects the worker's handlers

    with SandboxedPlayer(who_am_i) as player:
        player.start(10)
    server = _server()
    assert server.folder.name.startswith(forkserver.FOLDER_PREFIX) and server.folder.exists()
    worker_process_shutdown.send(sender=None, pid=os.getpid(), exitcode=0)  # as billiard's pool process sends it
    assert not server.folder.exists() and server.process.poll() is not None
