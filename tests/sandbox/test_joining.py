"""How the fork server puts a harness into its sandbox (bots/sandbox/zygote.py): forked straight into the sandbox's
PID namespace from the fork server's own user namespace, or, where the host gives it none, through a monitor per
sandbox. Seen from outside, both are the same."""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path

import pytest

from bots.players import BotFailure
from bots.sandbox import SandboxedPlayer, SandboxLimits, SandboxUnavailable, forkserver, scratch
from games import Termination

WHO_AM_I = """
import os
def play(observation):
    return {"plays": [], "pid": os.getpid(), "uid": os.getuid()}
"""


@pytest.fixture(params=[True, False], ids=["forked-by-the-fork-server", "through-a-monitor"])
def joining(request, sandbox_works, monkeypatch) -> bool:
    forkserver.stop_all()  # the next sandbox starts a fork server of the kind asked for
    monkeypatch.setattr(forkserver, "JOIN_PID_NAMESPACE", request.param)
    yield request.param
    forkserver.stop_all()


def _bot(tmp_path: Path, source: str, name: str = "bot") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    return folder / "bot.py"


def _server() -> forkserver.ForkServer:
    return forkserver.fork_server(*SandboxLimits().identity())


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if _parent(int(entry)) == pid:
                    found.add(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def test_the_harness_is_the_fork_servers_own_child(sandbox_works, tmp_path):
    """No process between them: the fork server forks each harness into its sandbox, and only the launcher, which
    starts every bwrap, lives beside them."""
    forkserver.stop_all()
    with SandboxedPlayer(_bot(tmp_path, WHO_AM_I)) as first, SandboxedPlayer(_bot(tmp_path, WHO_AM_I, "b")) as second:
        for player in (first, second):
            player.start(10)
            assert player.play({}, 5)[0]["pid"] == 2
        server = _server()
        assert server.joins_pid
        harnesses = {first._sandbox.child_pid, second._sandbox.child_pid}
        assert _children(server.process.pid) == {server.launcher_pid, *harnesses}
        for sandbox in (first._sandbox, second._sandbox):
            assert _parent(sandbox.bwrap_pid) == server.launcher_pid
            assert _parent(sandbox.init_pid) == sandbox.bwrap_pid


def test_a_bot_plays_as_pid_2_either_way(joining, tmp_path):
    with SandboxedPlayer(_bot(tmp_path, WHO_AM_I)) as player:
        player.start(10)
        reply = player.play({}, 5)[0]
        server = _server()
        parent = _parent(player._sandbox.child_pid)
        grandparent = _parent(parent)
    assert reply["pid"] == 2 and reply["uid"] == SandboxLimits().identity()[0]
    assert server.joins_pid is joining
    if joining:
        assert parent == server.process.pid
    else:
        assert parent != server.process.pid and grandparent == server.process.pid  # its monitor


@pytest.mark.parametrize(
    ("ending", "reported"),
    [("os._exit(3)", "exited with code 3"), ("os.abort()", "was killed by SIGABRT")],
)
def test_how_the_harness_ended_is_reported_either_way(joining, tmp_path, ending, reported):
    source = f"import os\ndef play(observation):\n    {ending}\n"
    with SandboxedPlayer(_bot(tmp_path, source)) as player:
        player.start(10)
        with pytest.raises(BotFailure) as failure:
            player.play({}, 5)
    assert failure.value.termination == Termination.CRASH
    assert reported in failure.value.detail


def test_a_harness_that_cannot_join_says_why_and_the_fork_server_serves_on(joining, tmp_path, monkeypatch):
    monkeypatch.setattr(scratch, "remount_options", lambda size, inodes: "nr_inodes=many")  # refused by the kernel
    with SandboxedPlayer(_bot(tmp_path, WHO_AM_I)) as player:
        with pytest.raises(SandboxUnavailable, match="capping /tmp"):
            player.start(10)
    monkeypatch.undo()
    monkeypatch.setattr(forkserver, "JOIN_PID_NAMESPACE", joining)
    with SandboxedPlayer(_bot(tmp_path, WHO_AM_I, "again")) as player:
        player.start(10)
        assert player.play({}, 5)[0]["pid"] == 2


def test_the_fork_server_keeps_nothing_of_a_closed_sandbox(joining, tmp_path):
    """Every sandbox's descriptors (its info socket, the harness's pidfd) and its child are gone from the fork server
    once the sandbox is closed, however it ended."""
    bots = [_bot(tmp_path, WHO_AM_I), _bot(tmp_path, "import os\ndef play(observation):\n    os._exit(1)\n", "dies")]
    with SandboxedPlayer(bots[0]) as player:
        player.start(10)
    server = _server()
    _settled(server)
    held = len(os.listdir(f"/proc/{server.process.pid}/fd"))
    for index in range(6):
        with SandboxedPlayer(bots[index % 2]) as player:
            player.start(10)
            try:
                player.play({}, 5)
            except BotFailure:
                pass
    _settled(server)
    assert _children(server.process.pid) == {server.launcher_pid}
    assert len(os.listdir(f"/proc/{server.process.pid}/fd")) == held


def _settled(server: forkserver.ForkServer) -> None:
    """Until the fork server has reaped every harness (or monitor): it does so as soon as each has exited."""
    deadline = time.monotonic() + 2
    while _children(server.process.pid) != {server.launcher_pid} and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_dying_fork_server_takes_its_harnesses_and_launcher_with_it(joining, tmp_path):
    with SandboxedPlayer(_bot(tmp_path, WHO_AM_I)) as player:
        player.start(10)
        player.play({}, 5)
        server = _server()
        launcher = os.pidfd_open(server.launcher_pid)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait()
        ended = select.poll()
        for pidfd in (player._sandbox.pidfd, player._sandbox.bwrap_pidfd, launcher):
            ended.register(pidfd, select.POLLIN)
        deadline = time.monotonic() + 5
        while len(ended.poll(100)) < 3 and time.monotonic() < deadline:
            pass
        assert len(ended.poll(0)) == 3, "a harness, bwrap or the launcher outlived the fork server"
        os.close(launcher)
        with pytest.raises(SandboxUnavailable, match="fork server ended"):
            player.play({}, 5)


KEEPER = """
import os
def play(observation):
    kept = os.path.exists("/tmp/kept")
    open("/tmp/kept", "w").close()
    return {"plays": [], "pid": os.getpid(), "kept": kept}
"""


def test_a_forgotten_bot_starts_over_in_its_sandbox_with_a_new_tmp(joining, tmp_path):
    with SandboxedPlayer(_bot(tmp_path, KEEPER)) as player:
        player.start(10)
        first = player.play({}, 5)[0]
        assert player.play({}, 5)[0]["kept"] is True
        assert player.forget() is True
        again = player.play({}, 5)[0]
        assert again["kept"] is False and again["pid"] == first["pid"] + 1  # the next PID of the same namespace
