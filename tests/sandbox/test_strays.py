"""A runner killed while bwrap built a sandbox leaves bwrap's child waiting for good; the next runner ends it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_helpers import REPO

from bots.sandbox import leftovers, workdirs
from bots.sandbox.bwrap import scratch_root

SHELL = shutil.which("dash") or shutil.which("sh")


def _dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True).stdout)


def _stand_in(folder: Path, name: str = "bwrap") -> subprocess.Popen:
    """A process named `name` that waits, its command line naming `folder`, as a stray bwrap names its bot's."""
    program = folder.parent / f"programs-{name}-{folder.name}" / name
    program.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SHELL, program)
    return subprocess.Popen([str(program), "-c", "read line", name, f"{folder}/bot"], stdin=subprocess.PIPE)


def test_end_strays_kills_the_bwraps_of_dead_runners_and_nothing_else(tmp_path):
    dead, alive = _dead_pid(), 1  # PID 1 never ends
    of_dead = _stand_in(tmp_path / f"{leftovers.SANDBOX_PREFIX}{dead}-abc")
    of_alive = _stand_in(tmp_path / f"{leftovers.SANDBOX_PREFIX}{alive}-abc")
    of_mine = _stand_in(tmp_path / f"{leftovers.SANDBOX_PREFIX}{os.getpid()}-abc")
    not_bwrap = _stand_in(tmp_path / f"{leftovers.SANDBOX_PREFIX}{dead}-def", name="sleeper")
    elsewhere = _stand_in(tmp_path / "other" / f"{leftovers.SANDBOX_PREFIX}{dead}-ghi")  # another root
    processes = [of_dead, of_alive, of_mine, not_bwrap, elsewhere]
    try:
        time.sleep(0.1)  # every stand-in has exec'd: its name and command line are the program's
        assert leftovers.stray_processes(tmp_path) == [of_dead.pid]
        assert leftovers.end_strays(tmp_path) == 1
        assert of_dead.poll() == -9  # reaped: end_strays waited for it to be gone
        time.sleep(0.2)  # time enough for a wrong kill to land
        assert [process.poll() for process in processes[1:]] == [None] * 4
        assert leftovers.stray_processes(tmp_path) == []
    finally:
        for process in processes:
            process.kill()
            process.wait()


def test_the_bwrap_of_a_runner_killed_mid_launch_is_ended_by_the_next_runner(sandbox_works, tmp_path):
    """Runners that launch sandboxes and are killed at once, before bwrap has written its child's uid map, leave
    that child behind (PID 1 of an empty sandbox, every capability still held in its namespace); the next runner's
    first sandbox ends it before it removes the dead runner's directories."""
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    killed_runner = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(REPO)!r})
        from bots.sandbox import SandboxedPlayer
        players = [SandboxedPlayer({str(bot)!r}) for _ in range(8)]
        for player in players:
            player.launch(10)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    root = scratch_root()
    strays: list[int] = []
    for _ in range(15):  # about one launch in ten leaves a stray here: a round of eight, half the time
        subprocess.run([sys.executable, "-c", killed_runner], cwd=REPO, capture_output=True)
        time.sleep(0.2)  # for the launches that did not stray to end
        strays = leftovers.stray_processes(root)
        if strays:
            break
    if not strays:
        pytest.skip("no runner killed mid-launch left a stray this time (the race it needs did not happen)")
    workdirs._remove_orphans_once.cache_clear()  # as in a runner that has prepared no bot folder yet
    workdirs._remove_orphans_once(root)
    assert leftovers.stray_processes(root) == []
    assert [_ended(pid) for pid in strays] == [True] * len(strays)


def _ended(pid: int) -> bool:
    """Gone, or a zombie that only init's reaping keeps in the process table."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_a_stray_the_runner_may_not_kill_is_left_to_one_that_may(tmp_path, monkeypatch):
    """A runner of another uid finds a stray of a runner it cannot signal: it goes on, and kills nothing."""
    stray = _stand_in(tmp_path / f"{leftovers.SANDBOX_PREFIX}{_dead_pid()}-abc")
    try:
        time.sleep(0.1)

        def refused(pidfd: int, signum: int) -> None:
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(leftovers.signal, "pidfd_send_signal", refused)
        assert leftovers.end_strays(tmp_path) == 0
        assert stray.poll() is None
    finally:
        stray.kill()
        stray.wait()
