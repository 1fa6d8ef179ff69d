"""`python -m games show|replay` as a terminal tool: bot-supplied text is shown escaped, and a reader that
stops early (`| head`) ends the run quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import games
from games import Termination

REPO = Path(__file__).resolve().parents[2]
TITLE = "\x1b]0;title\x07"
CLEAR = "\x1b[2J"


def hostile_log(tmp_path: Path) -> Path:
    """A game lost by a crash whose detail and bot name carry terminal escape sequences."""
    state = games.new_game("face-to-face", seed=5)
    state.forfeit(state.to_move, Termination.CRASH, f"bot said {TITLE}{CLEAR}")
    log = state.log.to_json()
    log["seats"] = [
        {"seat": 0, "bot": f"evil{CLEAR}", "version": None},
        {"seat": 1, "bot": f"also{TITLE}", "version": None},
    ]
    assert games.replay(json.loads(json.dumps(log))) == state.outcome  # still a valid log
    path = tmp_path / "game.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def test_show_prints_control_characters_as_escapes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "games", "show", str(hostile_log(tmp_path))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert r"bot said \x1b]0;title\x07\x1b[2J" in done.stdout
    assert r"evil\x1b[2J" in done.stdout and r"also\x1b]0;title\x07" in done.stdout


def run_into_closed_pipe(*command: str) -> subprocess.CompletedProcess[bytes]:
    """Run `command` with stdout a pipe nobody reads: what `| head` leaves once head has exited."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, *command], cwd=REPO, stdout=write_end, stderr=subprocess.PIPE, timeout=120, check=False
        )
    finally:
        os.close(write_end)


def test_show_and_replay_into_a_closed_pipe_end_quietly(tmp_path: Path) -> None:
    path = str(hostile_log(tmp_path))
    for command in (("-m", "games", "show", path), ("-m", "games", "replay", path)):
        done = run_into_closed_pipe(*command)
        assert done.stderr == b"", done.stderr.decode()
        assert done.returncode == 0


def test_bots_play_into_a_closed_pipe_ends_quietly() -> None:
    play = ("play", "house:random", "house:random", "--game", "face-to-face", "--games", "2")
    done = run_into_closed_pipe("-m", "bots", *play)
    assert done.stderr == b"", done.stderr.decode()
    assert done.returncode == 0
