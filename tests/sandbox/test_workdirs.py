"""The bot directories the sandboxes of one upload share: kept while used or recently used, and only so long."""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path

import pytest

from bots.sandbox import SandboxedPlayer, workdirs
from bots.sandbox.limits import SandboxLimits

LIMITS = SandboxLimits()


@pytest.fixture(autouse=True)
def own_entries(monkeypatch):
    """Each test with a cache of its own, emptied (its directories removed) at the end."""
    monkeypatch.setattr(workdirs, "_entries", OrderedDict())
    yield
    workdirs.remove_all()


def upload(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(f"def play(observation):\n    return {text!r}\n")
    return path


def test_the_sandboxes_of_one_upload_share_its_directory(tmp_path):
    bot = upload(tmp_path, "bot.py", "a")
    first = workdirs.acquire(bot, LIMITS)
    second = workdirs.acquire(bot, LIMITS)
    assert first == second and (first / "bot" / "bot.py").read_text() == bot.read_text()
    workdirs.release(first)
    workdirs.release(second)
    assert first.is_dir()  # idle, kept for the next sandbox of the upload
    assert workdirs.acquire(bot, LIMITS) == first


def test_an_upload_is_known_by_its_content_not_its_path(tmp_path):
    bot = upload(tmp_path, "bot.py", "old")
    old = workdirs.acquire(bot, LIMITS)
    upload(tmp_path, "bot.py", "new")
    new = workdirs.acquire(bot, LIMITS)
    assert new != old and "new" in (new / "bot" / "bot.py").read_text()
    assert "old" in (old / "bot" / "bot.py").read_text()  # still in use by the old upload's sandbox


def test_idle_directories_beyond_the_bound_go_least_recently_used_first(tmp_path, monkeypatch):
    monkeypatch.setattr(workdirs, "IDLE_KEPT", 2)
    paths = [workdirs.acquire(upload(tmp_path, f"bot{n}.py", str(n)), LIMITS) for n in range(4)]
    for path in paths[:3]:
        workdirs.release(path)
    assert [path.is_dir() for path in paths] == [False, True, True, True]  # the last one is still in use
    workdirs.release(paths[3])
    assert [path.is_dir() for path in paths] == [False, False, True, True]


def test_idle_directories_are_kept_only_within_the_byte_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(workdirs, "IDLE_BYTES", 10)
    path = workdirs.acquire(upload(tmp_path, "bot.py", "x" * 100), LIMITS)
    assert path.is_dir()  # in use: whatever its size
    workdirs.release(path)
    assert not path.is_dir()


def test_removing_the_idle_directories_leaves_those_in_use(tmp_path):
    used = workdirs.acquire(upload(tmp_path, "a.py", "a"), LIMITS)
    idle = workdirs.acquire(upload(tmp_path, "b.py", "b"), LIMITS)
    workdirs.release(idle)
    workdirs.remove_idle()
    assert used.is_dir() and not idle.is_dir()


def test_a_directory_removed_meanwhile_is_prepared_again(tmp_path):
    bot = upload(tmp_path, "bot.py", "a")
    first = workdirs.acquire(bot, LIMITS)
    workdirs.release(first)
    workdirs.remove_all()
    again = workdirs.acquire(bot, LIMITS)
    assert (again / "bot" / "bot.py").is_file()


def test_the_directories_are_the_sandbox_uids_alone(tmp_path):
    path = workdirs.acquire(upload(tmp_path, "bot.py", "a"), LIMITS)
    uid, gid, _ = LIMITS.identity()
    assert (path.stat().st_uid, path.stat().st_gid, path.stat().st_mode & 0o777) == (uid, gid, 0o700)
    assert (path / "bot" / "bot.py").stat().st_uid == uid


def test_a_forked_child_leaves_the_parents_directories_alone(tmp_path):
    path = workdirs.acquire(upload(tmp_path, "bot.py", "a"), LIMITS)
    child = os.fork()
    if child == 0:
        workdirs.release(path)  # what the child's sandboxes would do
        workdirs.remove_all()  # and what its exit does
        os._exit(0 if path.is_dir() else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and path.is_dir()


def test_the_next_sandbox_of_an_upload_plays_from_the_directory_the_last_one_left(tmp_path, sandbox_works):
    bot = upload(tmp_path, "bot.py", "ok")
    directories = []
    for _ in range(2):
        with SandboxedPlayer(bot) as player:
            player.start(10)
            turn, _ = player.play({"seat": 0}, 5)
            assert turn == "ok"
            directories.append(player._workdir)
    assert directories[0] == directories[1] and directories[0].is_dir()


def test_two_sandboxes_of_one_upload_at_once_share_its_directory_not_their_cgroups(tmp_path, sandbox_works):
    """Both seats of a self-play match: one directory, and each sandbox limited and killed on its own."""
    bot = upload(tmp_path, "bot.py", "ok")
    players = [SandboxedPlayer(bot), SandboxedPlayer(bot)]
    try:
        for player in players:
            player.start(10)
        assert [player.play({"seat": 0}, 5)[0] for player in players] == ["ok", "ok"]
        assert players[0]._workdir == players[1]._workdir
        groups = [player._sandbox.cgroup for player in players]
        if groups[0] is not None:  # a host with cgroups for the sandboxes: the other one gets its own too
            assert groups[1] is not None and groups[0].directories != groups[1].directories
    finally:
        for player in players:
            player.close()
