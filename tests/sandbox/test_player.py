"""SandboxedPlayer honours the Player contract: games, globals, logs, failures, restarts, clear errors."""

from __future__ import annotations

import ctypes
import os
import socket
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from sandbox_helpers import REPO

from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.players import BotFailure
from bots.sandbox import SandboxedPlayer, SandboxLimits, SandboxUnavailable, bwrap, forkserver, pool, seccomp
from games import Termination

COUNTER_BOT = """
import sys
games_seen = []
turns = 0

def new_game(info):
    games_seen.append(info["seed"])
    print("starting game", info["seed"], "Grüße")

def play(observation):
    global turns
    turns += 1
    print("turn", turns, file=sys.stderr)
    if observation.get("nap"):
        import time
        time.sleep(observation["nap"])
    return {"plays": [], "games": games_seen, "turns": turns}
"""

INFO = {"game": "the-game", "players": 1, "seat": 0, "options": {}}
CLONE_NEWNET = 0x40000000


def bot_file(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(source)
    return path


@pytest.fixture
def counter_bot(tmp_path: Path) -> Path:
    return bot_file(tmp_path, "counter.py", COUNTER_BOT)


def test_globals_persist_across_games_and_logs_are_per_game(sandbox_works, counter_bot):
    with SandboxedPlayer(counter_bot, name="counter") as player:
        assert player.version.startswith("sha256:")
        player.start(5)
        player.new_game({**INFO, "seed": "a"}, 1)
        turn, elapsed = player.play({}, 1)
        assert turn == {"plays": [], "games": ["a"], "turns": 1}
        assert 0 < elapsed < 1
        assert player.take_stderr() == "starting game a Grüße\nturn 1\n"
        assert player.take_stderr() == ""
        player.new_game({**INFO, "seed": "b"}, 1)
        turn, _ = player.play({}, 1)
        assert turn == {"plays": [], "games": ["a", "b"], "turns": 2}
        assert "starting game b" in player.take_stderr()


def test_a_timed_out_bot_gets_a_fresh_sandbox_next_game(sandbox_works, counter_bot):
    with SandboxedPlayer(counter_bot) as player:
        player.start(5)
        player.new_game({**INFO, "seed": "a"}, 1)
        first_sandbox = player.sandbox_pid
        with pytest.raises(BotFailure) as failure:
            player.play({"nap": 5}, 0.3)
        assert failure.value.termination == Termination.TIMEOUT
        assert player.sandbox_pid is None  # killed at the deadline
        player.new_game({**INFO, "seed": "b"}, 1)
        assert player.sandbox_pid not in (None, first_sandbox)
        turn, _ = player.play({}, 1)
        assert turn == {"plays": [], "games": ["b"], "turns": 1}  # globals started over


def test_a_crash_keeps_the_sandbox_and_names_the_error(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("calls = 0\ndef play(o):\n    global calls\n    calls += 1\n    if calls == 1:\n"
                   "        raise KeyError('no such pile')\n    return {'plays': [], 'calls': calls}\n")  # fmt: skip
    with SandboxedPlayer(bot) as player:
        player.start(5)
        with pytest.raises(BotFailure) as failure:
            player.play({}, 1)
        assert failure.value.termination == Termination.CRASH
        assert "KeyError" in failure.value.detail and "no such pile" in failure.value.stderr_tail
        assert player.play({}, 1)[0] == {"plays": [], "calls": 2}


def test_a_zip_bot_imports_its_modules_and_reads_its_data(sandbox_works, tmp_path):
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        source = "import json, helper\nTABLE = json.load(open('/bot/data/table.json'))\n"
        source += "def play(o):\n    return {'plays': [], 'x': helper.X, 'table': TABLE}\n"
        bundle.writestr("bot.py", source)
        bundle.writestr("helper.py", "X = 42\n")
        bundle.writestr("data/table.json", '{"a": [1, 2]}')
    with SandboxedPlayer(archive) as player:
        player.start(5)
        assert player.play({}, 1)[0] == {"plays": [], "x": 42, "table": {"a": [1, 2]}}


def test_a_bot_without_play_fails_to_start(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def think(o):\n    return []\n")
    with SandboxedPlayer(bot) as player, pytest.raises(BotFailure) as failure:
        player.start(5)
    assert failure.value.termination == Termination.CRASH
    assert failure.value.detail == "the bot failed to load: loading bot.py raised AttributeError"
    assert "defines no play(observation)" in failure.value.stderr_tail  # the owner's: the message is the bot's


def test_missing_bubblewrap_is_a_clear_error(monkeypatch, counter_bot):
    bwrap.bwrap_path.cache_clear()
    monkeypatch.setattr(bwrap.shutil, "which", lambda *args, **kwargs: None)
    try:
        with (
            SandboxedPlayer(counter_bot) as player,
            pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"),
        ):
            player.start(5)
    finally:
        bwrap.bwrap_path.cache_clear()


def test_limits_are_validated_with_their_name():
    with pytest.raises(ValueError, match="memory_bytes must be a positive integer"):
        SandboxLimits(memory_bytes=0)
    with pytest.raises(ValueError, match="uid must be a positive id"):
        SandboxLimits(uid=0)
    assert SandboxLimits().rlimits()["RLIMIT_CORE"] == 0


def test_the_bwrap_command_unshares_everything_and_mounts_little(tmp_path):
    command = bwrap.BwrapCommand(
        bot_dir="/host/bot", empty_dir="/host/empty", seccomp_fd=7, info_fd=8, block_fd=9,
        uid=65534, gid=65533,
    )  # fmt: skip
    argv = command.argv()
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                 "--as-pid-1", "--clearenv"):  # fmt: skip
        assert flag in argv
    assert argv[argv.index("--seccomp") + 1] == "7"
    assert argv[argv.index("--block-fd") + 1] == "9"  # held there, built, for the fork server to join
    assert argv[argv.index("--uid") + 1] == "65534" and argv[argv.index("--gid") + 1] == "65533"
    assert argv[argv.index("--cap-drop") + 1] == "ALL"  # bwrap runs as root of the scratch namespace
    remounted = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--remount-ro"]
    assert remounted == ["/"]
    # /dev: the host's harmless device nodes alone, bound over files of the read-only root; no devpts, no tty
    devices = {argv[i + 2]: argv[i + 1] for i, arg in enumerate(argv) if arg == "--dev-bind"}
    assert devices == {f"/dev/{name}": f"/dev/{name}" for name in ("null", "zero", "full", "random", "urandom")}
    assert "--dev" not in argv
    bound = {argv[i + 2]: argv[i + 1] for i, arg in enumerate(argv) if arg == "--ro-bind"}
    assert bound["/bot"] == "/host/bot" and "/harness" not in bound  # the harness comes from the fork server
    runtime = bwrap.python_runtime()
    assert all(hidden in bound and bound[hidden] == "/host/empty" for hidden in runtime.hidden)
    assert not any(path in ("/", "/etc", "/home", "/root", str(REPO)) for path in bound)
    # nothing host-side is writable: no writable bind at all, /tmp is a tmpfs of the sandbox's own (capped by the
    # fork server's monitor before the bot runs: scratch.py)
    assert "--bind" not in argv
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "--tmpfs"] == ["/tmp"]


def test_the_seccomp_program_is_built():
    program = seccomp.filter_bpf()
    assert len(program) % 8 == 0 and len(program) > 8 * 20  # BPF instructions are 8 bytes each


def test_the_seccomp_program_is_a_binary_tree_where_libseccomp_builds_one():
    class Rules:
        def __init__(self, refusal: Exception | None = None) -> None:
            self.attributes: dict[int, int] = {}
            self.refusal = refusal

        def set_attr(self, attribute: int, value: int) -> None:
            if self.refusal is not None:
                raise self.refusal
            self.attributes[attribute] = value

    library = SimpleNamespace(Attr=SimpleNamespace(CTL_OPTIMIZE=4))
    rules = Rules()
    seccomp._prefer_binary_tree(library, rules)
    assert rules.attributes == {4: 2}
    # libseccomp before 2.5 refuses the attribute (pyseccomp: OSError, python3-seccomp: RuntimeError) or the binding
    # lacks it: the filter is then the chain, with the same decisions
    for refusal in (OSError(22, "Invalid argument"), RuntimeError("Library error (errno = -22)")):
        seccomp._prefer_binary_tree(library, Rules(refusal))
    seccomp._prefer_binary_tree(SimpleNamespace(Attr=SimpleNamespace()), Rules())


@pytest.mark.parametrize(("game", "starter"), [("face-to-face", "face_to_face"), ("the-game", "the_game"),
                                               ("extreme", "extreme")])  # fmt: skip
def test_starter_bots_play_legally_in_the_sandbox(sandbox_works, game, starter):
    path = str(REPO / "docs" / "starters" / f"{starter}.py")
    bots = [BotSpec(path), BotSpec(path)]
    spec = MatchSpec(game=game, bots=bots, games=6, seed="starters", players=None if game == "face-to-face" else 2,
                     time_control=TimeControl(turn=5.0, bank=10.0, startup=10.0))  # fmt: skip
    result = run_match(spec)
    endings = {game_result.outcome.termination for game_result in result.games}
    assert endings <= {Termination.STUCK, Termination.ALL_CARDS_PLAYED}, endings


def _state(pid: int, expected: str) -> str:
    """The process's state letter, once it is `expected` or after a second (a stop signal takes a moment)."""
    deadline = time.monotonic() + 1
    while True:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == expected or time.monotonic() > deadline:
            return state
        time.sleep(0.005)


def test_a_bot_with_threads_is_stopped_between_its_turns(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(
        "import threading, time\nspins = 0\ndef spin():\n    global spins\n    while True:\n        spins += 1\n"
        "def play(o):\n    if o.get('start'):\n        threading.Thread(target=spin, daemon=True).start()\n"
        "    time.sleep(o.get('nap', 0))\n    return {'plays': [], 'spins': spins}\n"
    )
    with SandboxedPlayer(bot) as player:
        player.start(5)
        player.play({}, 1)
        assert _state(player.sandbox_pid, "T") == "T"  # one thread too: a signal handler could run there
        player.play({"start": True}, 1)
        assert _state(player.sandbox_pid, "T") == "T"  # stopped, spinner and all, until its next turn
        before = player.play({}, 1)[0]["spins"]
        time.sleep(0.3)
        after = player.play({"nap": 0.05}, 1)[0]["spins"]  # a turn long enough for the spinner to be scheduled
        assert _state(player.sandbox_pid, "T") == "T"
        assert after > before  # it does run during its own turns


def test_the_standard_library_works_inside(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(
        "import ctypes, decimal, hashlib, lzma, bz2, sqlite3, ssl, zlib, random, itertools, typing, dataclasses\n"
        "def play(o):\n    db = sqlite3.connect(':memory:')\n"
        "    return {'plays': [], 'sum': db.execute('select 2 + 3').fetchone()[0], 'ssl': ssl.OPENSSL_VERSION[:7]}\n"
    )
    with SandboxedPlayer(bot) as player:
        player.start(10)
        assert player.play({}, 2)[0] == {"plays": [], "sum": 5, "ssl": "OpenSSL"}


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner switches identity and creates cgroups")
def test_a_root_runner_drops_to_the_sandbox_uid_and_puts_the_sandbox_in_its_cgroups(sandbox_works, counter_bot):
    with SandboxedPlayer(counter_bot) as player:
        player.start(5)
        bwrap_pid, init_pid, harness_pid = player._sandbox.bwrap_pid, player._sandbox.init_pid, player.sandbox_pid
        for pid in (bwrap_pid, init_pid, harness_pid):
            status = Path(f"/proc/{pid}/status").read_text()
            ids = {line.split(":")[0]: line.split()[1:] for line in status.splitlines() if ":" in line}
            assert ids["Uid"] == ["65534"] * 4 and ids["Gid"] == ["65534"] * 4 and ids["Groups"] == []
            assert ids["CapEff"] == ["0000000000000000"]
        if player._sandbox.cgroup is None:
            pytest.skip("this host offers no cgroups to the runner")
        for pid in (bwrap_pid, init_pid, harness_pid):
            memberships = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
            groups = [line for line in memberships if "/thegame-arena/sbx-" in line]
            assert len(groups) == len(player._sandbox.cgroup.directories), memberships


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner switches identity")
def test_the_sandbox_keeps_none_of_the_runners_supplementary_groups(sandbox_works, counter_bot):
    groups = os.getgroups()
    os.setgroups([4, 27, 100])  # what a worker in a few groups (adm, sudo, users) would hold
    try:
        with SandboxedPlayer(counter_bot) as player:
            player.start(5)
            for pid in (player._sandbox.bwrap_pid, player.sandbox_pid):
                status = Path(f"/proc/{pid}/status").read_text()
                ids = {line.split(":")[0]: line.split()[1:] for line in status.splitlines() if ":" in line}
                assert ids["Groups"] == [] and ids["Gid"] == ["65534"] * 4, ids
    finally:
        os.setgroups(groups)


def test_launch_returns_at_once_and_start_waits_within_the_launch_deadline(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("import time\ntime.sleep(1.5)\ndef play(o):\n    return {'plays': []}\n")
    with SandboxedPlayer(bot) as player:
        launched = time.perf_counter()
        player.launch(10)
        assert time.perf_counter() - launched < 1.0  # the import's nap has not been waited for
        player.start(10)
        assert time.perf_counter() - launched >= 1.5
        assert player.play({}, 1)[0] == {"plays": []}
    with SandboxedPlayer(bot) as player:
        player.launch(0.8)
        with pytest.raises(BotFailure) as failure:
            player.start(10)  # the deadline is the launch's
        assert failure.value.termination == Termination.TIMEOUT


def test_launch_only_starts_the_build_and_boot_puts_the_bot_in_without_waiting_for_it(sandbox_works, tmp_path):
    """A match launches every seat's sandbox before it boots the first: their builds overlap."""
    bot = tmp_path / "bot.py"
    bot.write_text("import time\ntime.sleep(1.5)\ndef play(o):\n    return {'plays': []}\n")
    with SandboxedPlayer(bot) as first, SandboxedPlayer(bot) as second:
        launched = time.perf_counter()
        first.launch(10)
        second.launch(10)
        assert first.sandbox_pid is None and second.sandbox_pid is None  # bwrap builds them; no harness yet
        first.boot()
        second.boot()
        assert time.perf_counter() - launched < 1.0  # neither import's nap has been waited for
        assert first.sandbox_pid is not None and second.sandbox_pid is not None
        first.boot()  # again: nothing more to do
        first.start(10)
        second.start(10)
        assert time.perf_counter() - launched < 2.8  # the two naps overlapped
        assert first.play({}, 1)[0] == second.play({}, 1)[0] == {"plays": []}


def test_a_launched_sandbox_closed_before_its_boot_leaves_nothing(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(o):\n    return {'plays': []}\n")
    player = SandboxedPlayer(bot)
    player.launch(10)
    bwrap_pid = player._sandbox.bwrap_pid
    player.close()
    assert _reaped([bwrap_pid])
    with pytest.raises(SandboxUnavailable):
        player._sandbox.join()


def test_a_sandbox_whose_launcher_cannot_start_is_a_clear_error_and_leaves_nothing(
    sandbox_works, tmp_path, monkeypatch
):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(o):\n    return {'plays': []}\n")
    with SandboxedPlayer(bot) as player:
        player.start(10)  # the fork server is up
    held = set(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(bwrap.BwrapCommand, "argv", lambda self: ["/nonexistent/no-such-bwrap", "--version"])
    with pytest.raises(SandboxUnavailable, match="cannot start the sandbox: FileNotFoundError: .*no-such-bwrap"):
        SandboxedPlayer(bot).launch(10)
    assert set(os.listdir("/proc/self/fd")) == held  # its pipes closed, every one
    monkeypatch.undo()
    with SandboxedPlayer(bot) as player:  # the fork server serves on
        player.start(10)
        assert player.play({}, 1)[0] == {"plays": []}


def test_bwrap_is_the_launchers_child_and_holds_nothing_of_it(sandbox_works, counter_bot):
    with SandboxedPlayer(counter_bot) as player:
        player.start(10)
        bwrap = player._sandbox.bwrap_pid
        launchers = [server.launcher_pid for server in forkserver.running_servers()]
        assert int(Path(f"/proc/{bwrap}/stat").read_text().rpartition(")")[2].split()[1]) in launchers
        # in the runner's PID namespace: the PIDs it and bwrap report are the runner's
        assert os.readlink(f"/proc/{bwrap}/ns/pid") == os.readlink("/proc/self/ns/pid")
        held = {os.readlink(f"/proc/{bwrap}/fd/{fd}") for fd in os.listdir(f"/proc/{bwrap}/fd")}
        assert not [target for target in held if target.startswith("socket:")], held  # no control socket
        assert os.getsid(bwrap) == bwrap  # a session of its own, so its process group is its own


def test_begin_close_kills_at_once_and_close_leaves_nothing(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(o):\n    return {'plays': []}\n")
    with SandboxedPlayer(bot) as first, SandboxedPlayer(bot) as second:
        for player in (first, second):
            player.start(10)
            player.play({}, 1)
        sandboxes = [first._sandbox, second._sandbox]
        pids = [pid for sandbox in sandboxes for pid in (sandbox.child_pid, sandbox.init_pid, sandbox.bwrap_pid)]
        first.begin_close()
        second.begin_close()
        deadline = time.monotonic() + 5
        while any(b"\nState:\tZ" not in _status(pid) for pid in pids[:2] + pids[3:5]) and time.monotonic() < deadline:
            time.sleep(0.01)  # signalled, not waited for: each dies (a zombie until reaped) without close()
        assert all(b"\nState:\tZ" in _status(pid) for pid in pids[:2] + pids[3:5])
        first.close()
        second.close()
        assert _reaped(pids)  # every one


def _reaped(pids: list[int], within: float = 2.0) -> bool:
    """Whether every one of `pids` is gone, reaped, within `within` seconds (bwrap is the fork server's child, which
    reaps it as soon as it is scheduled after its exit)."""
    deadline = time.monotonic() + within
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _status(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/status").read_bytes()
    except OSError:
        return b"\nState:\tZ (gone)"


def test_nothing_of_the_launch_leaks_into_the_sandbox_as_a_descriptor(sandbox_works, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(
        "import os, stat\ndef play(o):\n    found = {}\n    for fd in range(256):\n        try:\n"
        "            found[fd] = stat.filemode(os.fstat(fd).st_mode)[0]\n        except OSError:\n            pass\n"
        "    return {'plays': [], 'fds': found}\n"
    )
    with SandboxedPlayer(bot) as player:
        player.start(5)
        fds = player.play({}, 2)[0]["fds"]
    # /dev/null as stdin, the log pipe as stdout and stderr, the harness's two protocol pipes: nothing else
    assert fds == {"0": "c", "1": "p", "2": "p", "3": "p", "4": "p"}


def test_a_bot_without_new_game_is_not_asked_for_it(sandbox_works, tmp_path):
    """No round trip for a function the bot does not define (decided when it loads, as in-process)."""
    counting = tmp_path / "counting.py"
    counting.write_text("games = 0\ndef new_game(info):\n    global games\n    games += 1\n"
                        "def play(o):\n    return {'plays': [], 'games': games}\n")  # fmt: skip
    silent = tmp_path / "silent.py"  # counts the requests its harness receives once it is loaded
    silent.write_text(
        "import gc\nchannel = next(x for x in gc.get_objects() if type(x).__name__ == 'Channel')\n"
        "received = []\nreceive = channel.receive\n"
        "def counting():\n    received.append(1)\n    return receive()\n"
        "channel.receive = counting\n"
        "def play(o):\n    return {'plays': [], 'requests': len(received)}\n"
    )
    info = {"game": "face-to-face", "players": 2, "seat": 0, "seed": "s:0", "options": {}}
    with SandboxedPlayer(counting) as with_it, SandboxedPlayer(silent) as without_it:
        with_it.start(5)
        without_it.start(5)
        for _ in range(3):
            with_it.new_game(info, 5)
            without_it.new_game(info, 5)
        assert with_it.play({}, 2)[0]["games"] == 3
        assert without_it.play({}, 2)[0]["requests"] == 1  # this play: no new_game came


def test_forget_starts_the_bot_over_in_the_same_sandbox(sandbox_works, counter_bot):
    with SandboxedPlayer(counter_bot) as player:
        player.start(5)
        player.new_game({**INFO, "seed": "a"}, 1)
        player.play({}, 1)
        sandbox, init_pid, first_harness = player._sandbox, player._sandbox.init_pid, player._sandbox.child_pid
        player.take_stderr()
        assert player.forget() is True
        player.new_game({**INFO, "seed": "b"}, 1)
        turn, _ = player.play({}, 1)
        assert turn == {"plays": [], "games": ["b"], "turns": 1}  # its globals start over
        assert player.take_stderr() == "starting game b Grüße\nturn 1\n"
        assert player._sandbox is sandbox and sandbox.init_pid == init_pid and sandbox.child_pid != first_harness
        if sandbox.cgroup is not None:
            memberships = Path(f"/proc/{sandbox.child_pid}/cgroup").read_text().splitlines()
            groups = [line for line in memberships if "/thegame-arena/sbx-" in line]
            assert len(groups) == len(sandbox.cgroup.directories), memberships


THREADS_BOT = (
    "import os, threading\n"
    "def play(observation):\n"
    "    for _ in range(observation['threads']):\n"
    "        thread = threading.Thread(target=int)\n"
    "        thread.start()\n"
    "        thread.join()\n"
    "    return {'plays': [], 'pid': os.getpid()}\n"
)


@pytest.fixture
def threads_bot(tmp_path: Path) -> Path:
    return bot_file(tmp_path, "threads.py", THREADS_BOT)


def test_a_bot_that_started_threads_starts_over_in_a_new_sandbox(sandbox_works, threads_bot):
    """Each thread takes the sandbox's next PID, and no harness's end resets the counter: the next harness's PID would
    tell how many threads the last bot started. Its sandbox is not used again."""
    with SandboxedPlayer(threads_bot) as player:
        player.start(5)
        assert player.play({"threads": 0}, 1)[0]["pid"] == 2
        sandbox = player._sandbox
        assert player.forget() is True
        assert player.play({"threads": 5}, 1)[0]["pid"] == 3  # no thread before it: the same sandbox, its next PID
        assert player._sandbox is sandbox
        assert player.forget() is True
        assert player.play({"threads": 0}, 1)[0]["pid"] == 2  # not 9: a new sandbox, which five threads never saw
        assert player._sandbox is not sandbox and sandbox.killed


def test_forget_leaves_a_dead_sandbox_to_the_next_game(sandbox_works, counter_bot):
    with SandboxedPlayer(counter_bot) as player:
        player.start(5)
        player._sandbox.kill()
        assert player.forget() is False
        player.new_game({**INFO, "seed": "c"}, 1)
        assert player.play({}, 1)[0]["games"] == ["c"]  # a new sandbox, as after a failure


def test_a_kept_sandbox_serves_the_next_match_of_its_upload_with_nothing_of_the_last(sandbox_works, tmp_path):
    bot = tmp_path / "keeper.py"
    bot.write_text(
        "import os\nseen = []\n"
        "def play(observation):\n"
        "    kept = os.path.exists('/tmp/kept')\n"
        "    open('/tmp/kept', 'w').close()\n"
        "    seen.append(1)\n"
        "    return {'plays': [], 'kept': kept, 'seen': len(seen)}\n"
    )
    pool.clear()
    with SandboxedPlayer(bot, reuse=True) as first:
        first.start(10)
        assert first.play({}, 5)[0] == {"plays": [], "kept": False, "seen": 1}
        sandbox, init_pid = first._sandbox, first._sandbox.init_pid
    assert pool.kept() == 1 and sandbox.built() and sandbox.child_pid is None  # its harness ended, the sandbox kept
    with SandboxedPlayer(bot, reuse=True) as second:
        second.start(10)
        assert second.play({}, 5)[0] == {"plays": [], "kept": False, "seen": 1}  # a new process, a new /tmp
        assert second._sandbox is sandbox and sandbox.init_pid == init_pid and pool.kept() == 0
    with SandboxedPlayer(bot) as unkept:  # not asked to reuse: a sandbox of its own, killed at close
        unkept.start(10)
        assert unkept._sandbox is not sandbox
    assert unkept._sandbox.killed and pool.kept() == 1
    pool.clear()
    assert pool.kept() == 0 and not sandbox.built()


def test_a_kept_sandbox_whose_bot_started_threads_serves_no_next_match(sandbox_works, threads_bot):
    pool.clear()
    with SandboxedPlayer(threads_bot, reuse=True) as first:
        first.start(10)
        assert first.play({"threads": 3}, 5)[0]["pid"] == 2
        sandbox = first._sandbox
    assert pool.kept() == 1
    with SandboxedPlayer(threads_bot, reuse=True) as second:
        second.start(10)
        assert second.play({"threads": 0}, 5)[0]["pid"] == 2  # not 6: a new sandbox
        assert second._sandbox is not sandbox and sandbox.killed and pool.kept() == 0
    pool.clear()


def _socket_in_network_namespace(pid: int) -> tuple[int, int]:
    """A Unix socket bound to an abstract name in process `pid`'s network namespace, held by a child of ours (its PID
    is returned, with the pipe end whose closing lets it end): what a bot's socket in flight leaves there until the
    kernel's collector finds it, made here so that no collector can take it before the runner looks."""
    ready_read, ready_write = os.pipe()
    hold_read, hold_write = os.pipe()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.close(hold_write)  # else our own copy keeps the pipe from ever reading as closed
            os.close(ready_read)
            namespace = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
            if ctypes.CDLL(None, use_errno=True).setns(namespace, CLONE_NEWNET) == 0:
                held = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                held.bind(b"\0arena-test-left-behind")
                os.write(ready_write, b"1")
                os.read(hold_read, 1)
                code = 0
        finally:
            os._exit(code)
    os.close(ready_write)
    os.close(hold_read)
    made = os.read(ready_read, 1)
    os.close(ready_read)
    if not made:
        os.waitpid(child, 0)
        os.close(hold_write)
        pytest.skip("cannot enter the sandbox's network namespace from here")
    return child, hold_write


@pytest.mark.skipif(os.geteuid() != 0, reason="entering a sandbox's network namespace takes a root runner")
def test_a_sandbox_with_a_socket_left_in_it_is_not_used_again(sandbox_works, counter_bot):
    pool.clear()
    with SandboxedPlayer(counter_bot, reuse=True) as player:
        player.start(10)
        player.play({}, 5)
        sandbox = player._sandbox
        assert player.forget() is True and player._sandbox is sandbox  # nothing left: the same sandbox
        player.play({}, 5)
        holder, release = _socket_in_network_namespace(sandbox.init_pid)
        try:
            assert player.forget() is False and sandbox.killed  # a socket left: the next game starts a new one
            player.play({}, 5)
            assert player._sandbox is not sandbox
            fresh = player._sandbox
        finally:
            os.close(release)
            os.waitpid(holder, 0)
        holder, release = _socket_in_network_namespace(fresh.init_pid)
    try:
        assert pool.kept() == 0 and fresh.killed  # nor is it kept for the next match
    finally:
        os.close(release)
        os.waitpid(holder, 0)
        pool.clear()


def test_a_bot_that_puts_a_socket_in_flight_leaves_none_for_the_next_harness(sandbox_works, tmp_path):
    """Whichever comes first, the kernel's collector or the runner's look at the sandbox's sockets, the next harness
    in that sandbox finds no socket of the last one's (test_attacks' hide_sockets: not by its name either)."""
    bot = tmp_path / "sockets.py"
    bot.write_text(
        "import array, socket\n"
        "def play(observation):\n"
        "    if observation.get('hide'):\n"
        "        carrier, sender = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
        "        held = array.array('i', [carrier.fileno()])\n"
        "        sender.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, held)])\n"
        "        carrier.close()\n"
        "    return {'plays': []}\n"
    )
    pool.clear()
    with SandboxedPlayer(bot, reuse=True) as player:
        player.start(10)
        player.play({"hide": True}, 5)
        sandbox = player._sandbox
        if player.forget():
            assert player._sandbox is sandbox and not sandbox._sockets_left()  # collected before the runner looked
        else:
            assert sandbox.killed
        player.play({}, 5)
    pool.clear()


def test_a_kept_sandbox_ends_when_its_time_is_up_though_no_match_comes(sandbox_works, counter_bot, monkeypatch):
    pool.clear()
    monkeypatch.setattr(pool, "IDLE_SECONDS", 0.2)
    with SandboxedPlayer(counter_bot, reuse=True) as player:
        player.start(10)
        sandbox = player._sandbox
    assert pool.kept() == 1 and sandbox.built()
    deadline = time.monotonic() + 5
    while pool.kept() and time.monotonic() < deadline:  # no keep or take: the timer alone
        time.sleep(0.05)
    assert pool.kept() == 0 and sandbox.killed and not sandbox.built()


def test_the_pool_drops_sandboxes_past_its_capacity_or_dead(sandbox_works, counter_bot, monkeypatch):
    pool.clear()
    monkeypatch.setattr(pool, "CAPACITY", 1)
    players = [SandboxedPlayer(counter_bot, reuse=True) for _ in range(2)]
    for player in players:
        player.start(10)
    sandboxes = [player._sandbox for player in players]
    for player in players:
        player.close()
    assert pool.kept() == 1 and not sandboxes[0].built() and sandboxes[1].built()  # the oldest went
    os.kill(sandboxes[1].init_pid, 9)
    time.sleep(0.2)
    with SandboxedPlayer(counter_bot, reuse=True) as player:
        player.start(10)
        assert player._sandbox is not sandboxes[1] and sandboxes[1].killed  # a dead one is not handed out
    pool.clear()
