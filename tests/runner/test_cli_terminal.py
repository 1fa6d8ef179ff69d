"""`python -m bots play` on a terminal: fixed-width log file names, and a progress line on stderr."""

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from bots.__main__ import Progress, log_file_name, main

REPO = Path(__file__).resolve().parents[2]


def test_log_files_have_six_digits_whatever_the_game_count(tmp_path, capsys):
    for games in ("3", "12"):
        folder = tmp_path / games
        assert main(["play", "house:random", "house:random", "--game", "face-to-face", "--games", games,
                     "--log-dir", str(folder)]) == 0  # fmt: skip
        names = sorted(path.name for path in folder.iterdir())
        assert names[0] == "game-000001.json"
        assert names[-1] == f"game-{int(games):06d}.json"
    assert log_file_name(999_999) == "game-1000000.json"


def test_the_help_names_the_log_files(capsys):
    try:
        main(["play", "--help"])
    except SystemExit:
        pass
    assert "game-000001.json" in capsys.readouterr().out


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_waits_a_second_then_redraws_a_few_times_a_second():
    clock, stream = Clock(), io.StringIO()
    progress = Progress(100, stream, clock=clock)
    clock.now = 0.5
    progress.update(10)
    assert stream.getvalue() == ""  # a short run shows nothing
    clock.now = 2.0
    progress.update(40)
    shown = stream.getvalue()
    assert "40/100 games" in shown and "20.0 games/s" in shown and "ETA 3 s" in shown
    clock.now = 2.1
    progress.update(42)
    assert "42/100" not in stream.getvalue()  # too soon after the last redraw
    clock.now = 2.5
    progress.update(50)
    assert "50/100" in stream.getvalue()
    progress.finish()
    assert stream.getvalue().endswith("\r\x1b[K")


def run_play(*flags, games="400", on_terminal=False):
    """`python -m bots play` with stderr on a pseudo-terminal (or a pipe): (stdout, stderr)."""
    command = [sys.executable, "-m", "bots", "play", "house:random", "house:random", "--game", "face-to-face",
               "--games", games, *flags]  # fmt: skip
    if not on_terminal:
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300, check=True)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out = process.communicate(timeout=300)[0]
    os.close(leader)
    assert process.returncode == 0
    return out.decode(), seen.decode()


def long_enough_games():
    """Enough games for well over a second (the progress line's delay): ~3.5 s at the CLI's ~2,800 games a second."""
    return "10000"


def test_a_terminal_gets_a_progress_line_and_a_pipe_or_json_nothing_extra():
    out, err = run_play(games=long_enough_games(), on_terminal=True)
    assert f"/{long_enough_games()} games" in err and "games/s" in err and "ETA" in err
    assert "ETA" not in out
    _, err = run_play("--json", games=long_enough_games(), on_terminal=True)
    assert err == ""
    _, err = run_play(games=long_enough_games())
    assert err == ""
    _, err = run_play("--progress", games=long_enough_games())
    assert "games/s" in err
    _, err = run_play("--no-progress", games=long_enough_games(), on_terminal=True)
    assert err == ""
