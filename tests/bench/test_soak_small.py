"""bench/soak.py at a small size: sandboxed games through a real Celery worker leave no open file, process or
sandbox behind, and the figures it prints are the ones it judges."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER = os.environ.get("DATABASE_URL", "")
SERVER = (
    f"{urlsplit(SERVER).scheme}://{urlsplit(SERVER).netloc}"
    if SERVER.startswith("postgres")
    else "postgres://postgres@127.0.0.1:5432"
)
BROKER = os.environ.get("CELERY_BROKER_URL", "")
BROKER = BROKER if BROKER.startswith("redis://") else "redis://127.0.0.1:6379/15"


def reachable(url: str, port: int) -> bool:
    address = urlsplit(url)
    try:
        socket.create_connection((address.hostname or "127.0.0.1", address.port or port), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not reachable(SERVER, 5432), reason="needs PostgreSQL")
@pytest.mark.skipif(not reachable(BROKER, 6379), reason="needs Redis (the workers' broker)")
def test_300_sandboxed_games_leak_no_files_processes_or_memory():
    command = [
        sys.executable, "-m", "bench.soak", "--games", "300", "--match-games", "10", "--every", "0.2",
        "--database-url", f"{SERVER}/arena_soak", "--broker-url", BROKER,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])

    assert result["games"] == 300 and result["matches"] == 30
    assert result["failed_matches"] == 0 and result["forfeits"] == 0
    processes = result["processes"]
    assert processes["max"] > processes["first"], "no sandbox was ever seen running: the sampling is blind"
    # idle, no bot runs: below the worker are its two pool processes and their fork servers, each with its launcher
    # (the long-lived processes whose files and memory are watched), and the emptied sandboxes kept for the next
    # matches, bwrap and its held child each
    assert processes["bots_left"] == 0 and 1 <= processes["kept_sandboxes"] <= processes["kept_cap"], processes
    assert processes["last"] == 2 + 2 * processes["fork_servers"] + 2 * processes["kept_sandboxes"], processes
    assert processes["sandboxes_settled"] == 0, processes  # and none once their time is up, though no match came
    assert 1 <= result["idle_warm"]["fork_servers"] <= 2, result["idle_warm"]
    assert result["fds"]["first"] == result["idle_warm"]["fds"], "files not compared idle with idle"
    assert result["rss_mib"]["first"] == result["idle_warm"]["rss_mib"], "memory not compared idle with idle"
    assert result["fds"]["growth"] <= 0.10, result["fds"]
    assert result["rss_mib"]["growth"] <= 0.10, result["rss_mib"]
    assert result["ok"] and done.stdout.strip().splitlines()[-2] == "PASS"
