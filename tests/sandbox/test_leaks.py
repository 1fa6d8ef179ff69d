"""After 1,000 sandboxed games: no leftover processes, file descriptors, temp directories or cgroups.

Real matches through bots.match.run_match, with a bot that crashes and times out now and then, so that
sandboxes end every way they can: closed at the end of a match, killed after a timeout, discarded after
a crash.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from sandbox_helpers import REPO

from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.sandbox import SandboxedPlayer, SandboxLimits, cgroups, forkserver, pool, workdirs

MATCHES = 20
GAMES_PER_MATCH = 50


def _children() -> list[int]:
    """This process's children but its fork servers and their launchers (which live as long as it does, by design),
    and theirs (each sandbox's harness and bwrap, which they reap)."""
    running = forkserver.running_servers()
    servers = {pid for server in running for pid in (server.process.pid, server.launcher_pid)}
    parents = {str(pid) for pid in (os.getpid(), *servers)}
    found = []
    for entry in os.listdir("/proc"):
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        parent = status.partition("\nPPid:\t")[2].partition("\n")[0]
        if parent in parents and int(entry) not in servers:
            found.append(int(entry))
    return found


def _state(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return f"{pid}: gone"
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    return f"{pid}: {fields.get('Name')} {fields.get('State')} parent {fields.get('PPid')}"


def _identity(pid: int) -> tuple[int, str] | None:
    """(pid, start time): a process's identity that PID reuse cannot fake."""
    try:
        return pid, Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


@pytest.mark.slow
def test_a_thousand_sandboxed_games_leave_nothing_behind(sandbox_works, tmp_path, monkeypatch, request):
    flaky = tmp_path / "flaky.zip"
    with zipfile.ZipFile(flaky, "w") as archive:
        archive.write(Path(__file__).parent / "bots" / "flaky.py", "bot.py")
        archive.write(REPO / "bots" / "house" / "greedy.py", "greedy.py")
    greedy = REPO / "bots" / "house" / "greedy.py"
    scratch = Path(tempfile.mkdtemp(prefix="thegame-leaks-", dir="/tmp"))  # tmp_path is not reachable by
    scratch.chmod(0o755)  # the sandbox's uid; the sandboxes' private directories go here instead
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    monkeypatch.setattr(workdirs, "scratch_root", lambda: str(scratch))

    sandboxes: list[tuple[int, str]] = []
    original_start = SandboxedPlayer.start

    def recording_start(self: SandboxedPlayer, timeout: float) -> None:
        original_start(self, timeout)
        sandboxes.append(_identity(self.sandbox_pid))

    monkeypatch.setattr(SandboxedPlayer, "start", recording_start)
    forkserver.fork_server(*SandboxLimits().identity())  # running before the count: its socket is no leak
    fds_before = sorted(os.listdir("/proc/self/fd"))

    played = 0
    crashes = timeouts = 0
    for match in range(MATCHES):
        spec = MatchSpec(
            game="face-to-face",
            bots=[BotSpec(str(greedy), name="greedy"), BotSpec(str(flaky), name="flaky")],
            games=GAMES_PER_MATCH,
            seed=f"leaks-{match}",
            duplicate=True,  # each match's second half: a new harness in each sandbox (forget), leaving nothing too
            reuse_sandboxes=True,  # and each match's sandboxes kept for the next (pool.py), as a league worker does
            time_control=TimeControl(turn=0.5, bank=0.0, startup=10.0),
            max_failures=GAMES_PER_MATCH,
        )
        result = run_match(spec)
        played += len(result.games)
        terminations = [game.outcome.termination.value for game in result.games]
        crashes += terminations.count("crash")
        timeouts += terminations.count("timeout")

    assert played == MATCHES * GAMES_PER_MATCH == 1000
    assert pool.kept() >= 1  # the last match's greedy sandbox (and flaky's, unless its last game failed)
    pool.clear()
    assert crashes > 0 and timeouts > 0  # the failure paths were taken
    assert len(sandboxes) > 2 * MATCHES  # restarts after failures made fresh sandboxes
    assert None not in sandboxes
    living = [sandbox for sandbox in sandboxes if _identity(sandbox[0]) == sandbox]
    assert living == [], "sandboxes (each the PID 1 of its namespace) are still alive"
    deadline = time.monotonic() + 2  # the fork server reaps as soon as it is scheduled after a child's exit
    while _children() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [_state(pid) for pid in _children()] == [], "unreaped children of the runner or of its fork server"
    assert sorted(os.listdir("/proc/self/fd")) == fds_before
    assert len(list(scratch.iterdir())) == 2  # one directory per upload, kept for its next sandbox (workdirs.py)
    workdirs.remove_idle()
    assert list(scratch.iterdir()) == []
    assert [group for group in cgroups.leftover_groups() if group.name.startswith(f"sbx-{os.getpid()}-")] == []


def _processes_naming(text: str) -> list[int]:
    """Live processes whose command line holds `text` (a zombie's is empty)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass  # gone meanwhile
    return found


def test_a_sandbox_closed_while_bwrap_builds_it_leaves_no_process(sandbox_works, tmp_path):
    """bwrap's child takes no parent-death signal before its exec, which ours never reaches: a sandbox closed before
    the runner knew its PID 1 (a match aborted as its bots launch) once left it waiting for good, about one in twenty
    closed 0.5-4 ms after the launch."""
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    with SandboxedPlayer(bot) as warm:  # the fork server up and the bot's folder prepared, as in a busy worker
        warm.start(10)
        folder = str(warm._workdir)
    for attempt in range(100):
        player = SandboxedPlayer(bot)
        player.launch(10)
        time.sleep(0.0005 * (1 + attempt % 8))
        player.close()
    deadline = time.monotonic() + 5
    while _processes_naming(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_naming(folder) == []
