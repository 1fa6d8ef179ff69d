"""`manage.py demo` brings the whole league up on SQLite with no server, and Ctrl-C stops all of it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def alive(group: int) -> bool:
    """Whether any process of this process group still runs (zombies waiting to be reaped do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it exited while we looked
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            return True
    return False


@pytest.mark.slow
def test_demo_serves_the_league_and_ctrl_c_stops_everything(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "ARENA_QUEUE")}
    env["ARENA_DATA_DIR"] = str(tmp_path / "data")
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(port), "--games", "2"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    children: list[int] = []
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 90
        printed = []
        for line in demo.stdout:
            printed.append(line)
            if f"The Game Arena runs at {url}" in line:
                break
            assert time.monotonic() < deadline, "".join(printed)
        children = [int(pid) for pid in subprocess.check_output(["pgrep", "-P", str(demo.pid)]).split()]
        assert len(children) == 2  # the worker (with its clock) and the web server
        while True:
            try:
                page = urllib.request.urlopen(f"{url}tournaments/", timeout=5).read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline, "the web server never answered"
                time.sleep(0.5)
        assert "Demo: house bots round robin" in page
        assert (tmp_path / "data" / "arena.sqlite3").exists()
        assert (tmp_path / "data" / "broker").is_dir()
    finally:
        demo.send_signal(signal.SIGINT)
        output, _ = demo.communicate(timeout=60)
    assert demo.returncode == 0, output
    assert "Stopped." in output
    assert children and not any(alive(pid) for pid in children)
