"""Hostile bots: each attack must fail, and the runner and the host must come out unharmed.

Every bot in tests/sandbox/attacks/ runs in a real sandbox (the `attack` fixture also checks that no process
of its PID namespace outlives it). The bot reports what it managed in its turn; the test checks the report
and, independently, the host side: canary files, listeners, the file system.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import socket
import sys
import time
from pathlib import Path

import pytest
from sandbox_helpers import ATTACKS, REPO, pid_namespace, processes_in

from bots.match import BotSpec, MatchSpec, run_match
from bots.sandbox import SandboxedPlayer, SandboxLimits
from games import Termination

DENIED = "denied"


def all_denied(results: dict[str, object], except_keys: tuple[str, ...] = ()) -> None:
    leaks = {key: value for key, value in results.items() if key not in except_keys}
    assert all(str(value).startswith(DENIED) for value in leaks.values()), leaks


def test_reading_host_files_finds_nothing(attack, tmp_path, monkeypatch):
    secret = secrets.token_hex(16)
    canary = tmp_path / "canary.txt"
    canary.write_text(secret)
    database = tmp_path / "arena.sqlite3"
    database.write_text(f"SQLite format 3 {secret}")
    monkeypatch.setenv("SECRET_KEY", secret)
    monkeypatch.setenv("DATABASE_URL", f"postgres://user:{secret}@localhost/db")
    paths = [
        str(canary),
        str(database),
        str(REPO / "league" / "settings.py"),
        str(REPO / "bots" / "players.py"),
    ]

    result = attack("read_host_files", {"paths": paths})

    found = result.turn["found"]
    for path in [*paths, "/etc/passwd", "/etc/shadow", "/proc/1/environ"]:
        assert found[path].startswith(DENIED), (path, found[path])
    # The Python runtime is bound where it lives on the host: /usr for Debian's, /root for a pyenv one.
    runtime_top = Path(sys.base_prefix).resolve().parts[1]
    assert found["listing /"] == sorted({"bot", "dev", "lib", "lib64", "tmp", "usr", runtime_top})
    assert not {"SECRET_KEY", "DATABASE_URL"} & set(found["environ"])
    assert secret not in repr(result.turn) + result.log


def test_writing_outside_scratch_fails_and_scratch_stays_private(attack, tmp_path):
    host_file = tmp_path / "host.txt"
    host_file.write_text("untouched")

    result = attack("write_outside", {"host_path": str(host_file)})

    results = result.turn["results"]
    assert results.pop("/tmp/scratch.txt") == "written"  # its own scratch works...
    all_denied(results)
    assert host_file.read_text() == "untouched"
    assert not Path("/tmp/scratch.txt").exists()  # ...and is not the host's /tmp
    assert not Path("/pwned").exists()


def test_tcp_to_a_host_listener_never_connects(attack):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        result = attack("tcp_connect", {"port": listener.getsockname()[1]})
        with pytest.raises(BlockingIOError):
            listener.accept()  # 0 connections
    all_denied(result.turn["results"])


def test_udp_and_raw_sockets_send_nothing(attack):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        receiver.setblocking(False)
        result = attack("udp_send", {"port": receiver.getsockname()[1]})
        with pytest.raises(BlockingIOError):
            receiver.recvfrom(1024)
    all_denied(result.turn["results"])


def test_unix_sockets_of_the_host_are_out_of_reach(attack, tmp_path):
    path = tmp_path / "host.sock"
    abstract = "thegame-test-" + secrets.token_hex(4)
    with socket.socket(socket.AF_UNIX) as by_path, socket.socket(socket.AF_UNIX) as by_name:
        by_path.bind(str(path))
        by_name.bind("\0" + abstract)
        for listener in (by_path, by_name):
            listener.listen(8)
            listener.setblocking(False)
        result = attack("unix_socket", {"path": str(path), "abstract": abstract})
        for listener in (by_path, by_name):
            with pytest.raises(BlockingIOError):
                listener.accept()
    all_denied(result.turn["results"])


def test_fork_bomb_cannot_fork(attack):
    result = attack("fork_bomb")
    assert result.turn["results"]["forks"] == 0
    assert result.turn["results"]["error"] == "PermissionError 1"
    assert result.turn["results"]["spawn"].startswith(DENIED)
    assert result.turn["results"]["multiprocessing"].startswith(DENIED)


def test_thread_bomb_stops_at_the_process_limit(attack):
    result = attack("thread_bomb")
    assert result.turn["error"] == "can't start new thread"
    assert result.turn["threads"] < SandboxLimits().processes


def test_memory_bomb_hits_the_memory_limit(attack):
    result = attack("memory_bomb", timeout=30)
    assert result.failure is not None and result.failure.termination == Termination.RESOURCE_LIMIT
    assert "MemoryError" in result.failure.detail


def test_scratch_tmpfs_is_size_capped(attack):
    result = attack("tmpfs_fill")
    assert result.turn["written"] <= SandboxLimits().scratch_bytes
    assert result.turn["errors"][0] in ("OSError 28", "OSError 27")  # ENOSPC, or EFBIG first


def test_scratch_tmpfs_is_capped_in_files_too(attack):
    result = attack("tmpfs_inodes", {"files": 390_000}, timeout=20)
    cap = SandboxLimits().scratch_files
    assert result.turn["inodes"] == cap
    assert result.turn["error"] == "OSError 28"  # ENOSPC
    assert cap - 2 <= result.turn["created"] < cap  # the root directory is an inode too


def test_a_1_gib_file_stops_at_the_file_size_limit(attack):
    result = attack("big_file")
    assert result.turn["written"] <= SandboxLimits().file_bytes
    assert len(result.turn["errors"]) == 2


@pytest.mark.parametrize("name", ["busy_loop", "sleep_past_deadline"])
def test_a_bot_past_its_time_is_killed_at_once(attack, name):
    result = attack(name, timeout=0.5)
    assert result.failure is not None and result.failure.termination == Termination.TIMEOUT
    assert result.elapsed < 0.5 + 0.5  # killed at the deadline, not waited on


def test_stdout_flood_goes_to_the_capped_log_not_the_protocol(attack):
    result = attack("stdout_flood", timeout=30)
    assert result.turn == {"plays": [], "flooded": True}
    assert len(result.log) < SandboxLimits().stderr_bytes + 100
    assert "earlier bytes of output dropped" in result.log


def test_stderr_flood_is_capped(attack):
    result = attack("stderr_flood", timeout=30)
    assert result.turn == {"plays": [], "flooded": True}
    assert len(result.log) < SandboxLimits().stderr_bytes + 100


def test_garbage_on_the_protocol_pipe_is_a_protocol_error(attack):
    result = attack("protocol_flood")
    assert result.failure is not None and result.failure.termination == Termination.PROTOCOL_ERROR


def test_killing_parent_init_and_runner_does_nothing(attack):
    result = attack("kill_parent", {"runner_pid": os.getpid()})
    assert result.turn is not None  # the sandbox itself survived its own attack
    assert result.turn["results"]["ppid"] == "invisible"  # its parent is outside its PID namespace
    assert os.getppid() > 0  # and so did this runner (it is running this line)


def test_kill_minus_one_reaches_only_the_sandbox(attack, sandbox_works, tmp_path):
    bystander_bot = tmp_path / "bot.py"
    bystander_bot.write_text("def play(observation):\n    return {'plays': [], 'alive': True}\n")
    with SandboxedPlayer(bystander_bot, limits=SandboxLimits()) as bystander:  # same uid, another sandbox
        bystander.start(5)
        result = attack("kill_everyone")
        assert bystander.play({}, 2)[0] == {"plays": [], "alive": True}
    assert result.turn["result"] == "denied: ProcessLookupError"  # nobody else is visible to signal


def test_ptrace_is_refused(attack):
    result = attack("ptrace_attack", {"runner_pid": os.getpid()})
    all_denied(result.turn["results"])


def test_raw_syscalls_through_ctypes_are_refused(attack):
    results = attack("ctypes_syscalls").turn["results"]
    all_denied(results)
    assert results["socket-inet"] == "denied: errno 97"  # EAFNOSUPPORT
    assert results["clone3"] == "denied: errno 38"  # ENOSYS, so libc falls back to clone


def test_no_shell_can_be_spawned(attack):
    results = attack("spawn_shell").turn["results"]
    assert results["subprocess"].startswith(DENIED)
    assert results["system"] != 0
    assert results["execv"].startswith(DENIED)
    assert not any(results[shell] for shell in ("/bin/sh", "/usr/bin/sh", "/bin/bash"))


def test_a_daemon_does_not_survive_the_match(attack):
    result = attack("daemon")  # the fixture checks that its PID namespace is empty after close
    assert result.turn["results"] == {"daemon": "denied: PermissionError", "thread": "started"}


def test_import_time_busy_loop_times_out_at_start_up(attack):
    result = attack("import_busy", start_timeout=1.0)
    assert result.failure is not None and result.failure.termination == Termination.TIMEOUT
    assert "hello" in result.failure.detail


def test_import_time_exit_is_a_crash(attack):
    result = attack("import_exit")
    assert result.failure is not None and result.failure.termination == Termination.CRASH
    assert "exited with code 3" in result.failure.detail


def test_import_time_attack_is_a_crash_with_its_log(attack):
    result = attack("import_raise")
    assert result.failure is not None and result.failure.termination == Termination.CRASH
    assert "import-time attack finished" in result.failure.stderr_tail
    assert "no /etc/passwd: FileNotFoundError" in result.log
    assert "no fork: PermissionError" in result.log


def test_a_bot_cannot_read_another_bots_files(attack, tmp_path):
    secret = secrets.token_hex(16)
    other = tmp_path / "other.py"
    other.write_text(f"SECRET = {secret!r}\ndef play(observation):\n    return []\n")
    with SandboxedPlayer(other) as victim:
        victim.start(5)
        victim_files = [str(path) for path in Path(victim._workdir).rglob("*.py")]
        assert victim_files  # the victim's unpacked bot.py, on the host
        result = attack("read_other_bot", {"paths": [str(other), *victim_files]})
    results = result.turn["results"]
    assert results.pop("own /bot") == ["__pycache__", "bot.py"]  # its own file, and the bytecode the runner made of it
    all_denied(results)
    assert secret not in repr(result.turn)


def test_limits_cannot_be_raised_nor_privileges_regained(attack):
    results = attack("raise_limits").turn["results"]
    for name in ("RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE"):
        assert results[name].startswith(DENIED)
    assert 0 not in results["uid"]
    assert results["capabilities"] == {"sets": [0] * 6, "bounding": [], "ambient": [], "no_new_privs": 1}


@pytest.mark.parametrize(
    ("mode", "termination", "words"),
    [
        ("set", Termination.PROTOCOL_ERROR, "not JSON-serialisable"),
        ("nan", Termination.PROTOCOL_ERROR, "not JSON-serialisable"),
        ("huge", Termination.PROTOCOL_ERROR, "exceeds 65536 bytes"),
        ("sys.exit", Termination.CRASH, "SystemExit"),
        ("os._exit", Termination.CRASH, "exited with code 7"),
        ("raise", Termination.CRASH, "the bot's own bug"),
        ("segfault", Termination.CRASH, "SIGSEGV"),
    ],
)
def test_bad_replies_are_named_failures(attack, mode, termination, words):
    result = attack("bad_replies", {"mode": mode})
    assert result.failure is not None and result.failure.termination == termination
    assert words in result.failure.detail + result.failure.stderr_tail
    assert "the bot's own bug" not in result.failure.detail  # an exception's text is for the owner (stderr) only


def test_a_malformed_reply_is_quoted_to_its_owner_only(attack):
    result = attack("bad_replies", {"mode": "raw"})
    assert result.failure is not None and result.failure.termination == Termination.PROTOCOL_ERROR
    assert result.failure.detail == "reply to 'play': line is not JSON: expected a JSON value at column 1"
    assert "words for the owner's eyes only" in result.failure.stderr_tail  # the public game log gets the detail


def test_cpu_time_limit_ends_a_spinning_bot(attack):
    result = attack("busy_loop", timeout=20, limits=SandboxLimits(cpu_seconds=1))
    assert result.failure is not None and result.failure.termination == Termination.RESOURCE_LIMIT
    assert result.elapsed < 15


def test_every_attack_bot_is_exercised():
    tested = "".join(path.read_text() for path in Path(__file__).parent.glob("test_*.py"))
    names = sorted(path.stem for path in ATTACKS.glob("*.py"))
    assert len(names) >= 20
    assert [name for name in names if f'"{name}"' not in tested] == []


def test_processes_in_sees_a_live_sandbox(sandbox_works, tmp_path):
    """The leak check itself must be able to fail: while a sandbox runs, its namespace has processes."""
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    with SandboxedPlayer(bot) as player:
        player.start(5)
        namespace = pid_namespace(player.sandbox_pid)
        # bwrap's child, PID 1 of the namespace, held before its exec; and the harness the fork server put there
        assert processes_in(namespace) == sorted([player._sandbox.init_pid, player.sandbox_pid])
    deadline = time.monotonic() + 1
    while processes_in(namespace) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert processes_in(namespace) == []


def test_the_host_cannot_be_queried_nor_memory_held_beyond_the_limits(attack):
    result = attack("host_info")
    results = result.turn["results"]
    hidden = ("statmount", "listmount", "sysinfo", "sysfs", "ustat", "cachestat", "get_mempolicy")
    hidden += ("lsm_list_modules", "lsm_get_self_attr", "quotactl_fd")
    assert {name: results[name] for name in hidden} == dict.fromkeys(hidden, "denied: errno 38")  # ENOSYS
    held = ("shmget", "msgget", "semget", "mq_open", "memfd_create", "os.memfd_create")
    assert {name: results[name] for name in held} == dict.fromkeys(held, "denied: errno 1")  # EPERM
    assert results["os.posix_fadvise"] == "denied: errno 1"  # the page cache is every sandbox's
    python = result.turn["python"]
    assert python["cpu_count"] >= 1 and python["uname"] == "Linux" and python["SC_PAGE_SIZE"] > 0
    assert python["SC_NPROCESSORS_ONLN"] >= 1


def test_a_bot_cannot_continue_itself(attack):
    """Only the runner sends SIGCONT: a thread of the bot's racing its process's stop cannot cancel it, neither with
    the signal's number plain nor with garbage in the high word of its argument, which the kernel ignores."""
    results = attack("continue_itself").turn["results"]
    assert results.pop("os.kill") == "denied: PermissionError"
    senders = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal")
    later = ("fcntl F_SETSIG", "prctl PR_SET_PDEATHSIG")
    names = [name + suffix for name in senders + later for suffix in ("", " high word")] + ["timer_create"]
    assert results == dict.fromkeys(names, "denied: errno 1")


def test_a_bot_gets_no_terminal(attack):
    """A session leader's terminal hanging up continues it (SIGHUP, then SIGCONT): the harness leads its session, so
    the sandbox offers no pseudo-terminal to open."""
    results = attack("get_terminal").turn["results"]
    assert results.pop("/dev") == ["full", "null", "random", "urandom", "zero"]
    assert results == dict.fromkeys(("/dev/ptmx", "/dev/pts/ptmx", "/dev/tty"), "denied: FileNotFoundError")


def test_a_bot_whose_main_thread_ends_alone_is_stopped_for_good(attack):
    """A zombie main thread shows no stop; the runner must not take that for a stopped bot."""
    result = attack("zombie_leader")
    assert result.failure is not None and result.failure.termination == Termination.CRASH
    assert "main thread ended" in result.failure.detail


def test_nothing_of_the_fork_server_is_in_reach_of_the_bot(attack):
    turn = attack("host_traces").turn
    functions = [frame["function"] for frame in turn["frames"]]
    assert functions == ["play", "serve", "main", "<module>"], functions  # the fork server's frames are gone
    everything = repr(turn)
    for trace in ("/dev/shm", "thegame-zygote", "bwrap_pid", "init_pid", "harness_dir"):  # its requests, its folder
        assert trace not in everything, trace
    assert turn["orig_argv"][-1] == turn["argv"][0] == "/harness/harness.py"


def test_pid_1_is_out_of_the_bots_reach(sandbox_works):
    """bwrap's child, held before its exec, is PID 1 without a filter of its own: nothing may drive it."""
    with SandboxedPlayer(ATTACKS.joinpath("drive_init").with_suffix(".py")) as player:
        player.start(5)
        turn = player.play({"attack": {}}, 5)[0]
        init = os.pidfd_open(player._sandbox.init_pid)
        try:
            assert not select.select([init], [], [], 0.2)[0], "PID 1 ended: the signals reached it"
        finally:
            os.close(init)
        assert player.play({"attack": {}}, 5)[0]["me"] == 2  # and the sandbox lives on
    results = turn["results"]
    assert results.pop("proc") == "absent"
    assert results.pop("signals") == "sent"  # and ignored: PID 1 has no handlers, and they come from its namespace
    all_denied(results)


def test_the_seed_a_bot_is_told_does_not_deal_the_game(sandbox_works):
    """new_game() gets a seed for the bot's own randomness; dealt with the engine's public shuffle, it must not give
    the game's cards (the game's own seed would: the bot would know its opponent's hand and both draw piles)."""
    spec = MatchSpec(
        "face-to-face",
        [BotSpec(str((ATTACKS / "deal_from_seed").with_suffix(".py"))), BotSpec("house:greedy")],
        games=2,
        seed="s",
    )
    result = run_match(spec)
    reports = [json.loads(line) for game in result.games for line in game.stderr[0].splitlines() if "predicted" in line]
    assert len(reports) == 2
    assert not any(report["predicted"] for report in reports), reports
    told = [report["seeds"][-1] for report in reports]  # the crash restarts the sandbox: a report a game
    assert len(set(told)) == 2 and not {game.log["seed"] for game in result.games} & set(told)


def duplicate_match_against_greedy(attack: str, games: int = 4):
    """A duplicate match of the attack bot against greedy: two deals, each played from both sides."""
    bots = [BotSpec(str((ATTACKS / attack).with_suffix(".py"))), BotSpec("house:greedy")]
    return run_match(MatchSpec("face-to-face", bots, games=games, duplicate=True))


def test_a_bot_plays_no_mirrored_deal_remembering_the_other_side(sandbox_works):
    """A duplicate match replays its deals from the other seats only after starting the bots afresh: what a bot kept
    of the first half, in globals or in /tmp, is gone (it would tell the opponent's hand in the mirrored games)."""
    result = duplicate_match_against_greedy("remember_deals")
    assert all(game.outcome.termination == Termination.ILLEGAL_TURN for game in result.games)
    reports = [game.stderr[0].split("\n")[0].split() for game in result.games]
    # globals, files in /tmp, an attribute of /tmp: each remembers the half's earlier game alone
    assert [report[1:4] for report in reports] == [[str(n)] * 3 for n in (0, 1, 0, 1)], reports
    # the second half's bot is a new harness in the same sandbox (PID 3 of its PID namespace), not a new sandbox
    assert [report[5] for report in reports] == ["2", "2", "3", "3"], reports


def test_a_bot_carries_no_number_to_its_mirrored_half_through_the_sandboxs_pids(sandbox_works):
    """The first half's bot starts as many threads as a number it wants the mirrored half to know; the mirrored half's
    harness would read it off its own PID, had it joined the same sandbox."""
    result = duplicate_match_against_greedy("count_through_pids")
    reports = [game.stderr[0].split() for game in result.games]
    assert [report[0] for report in reports] == ["pid"] * 4, reports
    assert int(reports[0][3]) > 0  # it did send a number
    assert [report[1] for report in reports] == ["2", "2", "2", "2"], reports  # the mirrored half: PID 2 of a new one


def test_a_bot_leaves_no_socket_for_its_mirrored_half_to_find(sandbox_works):
    """Sockets kept alive past the process's end, by descriptors in flight in a cycle, would stay bound to their names
    in the sandbox's network namespace, where the mirrored half's new harness could look them up."""
    result = duplicate_match_against_greedy("hide_sockets")
    reports = [game.stderr[0].splitlines() for game in result.games if game.stderr]
    assert len(reports) == 2, reports  # a report at each half's first game
    assert reports[1][0] == "found", reports  # the mirrored half finds none of them
    if len(reports[0][1].split()) == 1:  # "hid" alone: the kernel collected each cycle as the bot closed it
        pytest.skip("this kernel's collector took the sockets at once: the attack hid nothing to find")
