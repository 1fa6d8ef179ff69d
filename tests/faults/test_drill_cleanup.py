"""The fault drill stopped by a signal leaves nothing behind: its workers, beat, Redis and PostgreSQL run in sessions of
their own (no signal to the drill reaches them), so the drill must stop them itself, and remove its folders."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench import faults, harness

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (faults.PG_BIN / "initdb").exists() or shutil.which("redis-server") is None,
        reason="needs PostgreSQL 15's binaries and redis-server to start services of its own",
    ),
]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def environment(pid: int) -> dict[str, str]:
    try:
        entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return {}
    return dict(entry.decode(errors="replace").partition("=")[::2] for entry in entries if b"=" in entry)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie is gone, only not yet reaped by a parent that is gone too


def test_a_drill_stopped_by_a_signal_stops_its_services_and_workers():
    number = signal.SIGTERM  # as a CI job's timeout, or `kill`, stops it
    drill = subprocess.Popen(
        [sys.executable, "-m", "bench.faults", "--bots", "3", "--games", "2", "--faults", "kill-pool-process"],
        cwd=faults.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not any(" worker " in command_line(pid) for pid in harness.process_tree(drill.pid)):
            assert drill.poll() is None, drill.stdout.read().decode()[-3000:]
            assert time.monotonic() < deadline, "the drill started no worker within 120 s"
            time.sleep(0.2)
        started = set(harness.process_tree(drill.pid)) - {drill.pid}
        # The folders they keep their files in: PostgreSQL's cluster (-D), the drill's own (the workers' data in it).
        # Only Celery's processes are asked for their data folder: the others inherit this test's environment, whose
        # ARENA_DATA_DIR (a test process's own, under /tmp) is not the drill's.
        folders = {
            Path(argv[argv.index("-D") + 1]).parent
            for argv in (command_line(pid).split() for pid in started)
            if argv and argv[0].endswith("postgres") and "-D" in argv
        } | {
            Path(data).parent
            for pid in started
            if " celery " in command_line(pid) and (data := environment(pid).get("ARENA_DATA_DIR"))
        }
        assert len(folders) == 2 and all(folder.is_dir() for folder in folders), folders
        drill.send_signal(number)
        output = drill.communicate(timeout=90)[0].decode()
    finally:
        if drill.poll() is None:
            for pid in harness.process_tree(drill.pid):  # this test failed: leave nothing running either
                os.kill(pid, signal.SIGKILL)
    assert drill.returncode != 0 and f"stopped by {signal.Signals(number).name}" in output
    assert [command_line(pid) for pid in started if alive(pid)] == []
    assert [folder for folder in folders if folder.exists()] == []
