"""`python -m bots play`: the summary, JSON output, log files, and clear errors."""

import json
import subprocess
import sys

import pytest

from bots.__main__ import main


def run_cli(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_it_prints_per_bot_wins_with_an_interval(capsys):
    code, out, _ = run_cli(
        capsys, "play", "house:greedy", "house:random", "--game", "face-to-face", "--games", "20", "--seed", "7"
    )
    assert code == 0
    assert "house:greedy" in out and "95% CI" in out and "games/s" in out


def test_it_prints_json_for_face_to_face(capsys):
    code, out, _ = run_cli(
        capsys,
        "play",
        "house:greedy",
        "house:random",
        "--game",
        "face-to-face",
        "--games",
        "10",
        "--json",
        "--duplicate",
    )
    summary = json.loads(out)
    assert code == 0
    assert summary["games"] == 10 and summary["duplicate"] is True
    assert [bot["bot"] for bot in summary["bots"]] == ["house:greedy", "house:random"]
    assert sum(bot["wins"] for bot in summary["bots"]) == 10
    for bot in summary["bots"]:
        low, high = bot["ci95"]
        assert 0 <= low <= bot["win_rate"] <= high <= 1


def test_it_prints_cards_left_for_the_coop_games(capsys):
    code, out, _ = run_cli(
        capsys, "play", "house:greedy", "--game", "the-game", "--players", "3", "--games", "8", "--json"
    )
    summary = json.loads(out)
    assert code == 0 and summary["players"] == 3 and len(summary["bots"]) == 3
    assert 0 <= summary["win_rate"] <= 1
    assert summary["mean_cards_left"] >= 0
    assert sum(summary["cards_left_histogram"].values()) == 8


def test_its_logs_replay_with_python_m_games(tmp_path, capsys):
    code, _, _ = run_cli(
        capsys,
        "play",
        "house:random",
        "house:greedy",
        "--game",
        "face-to-face",
        "--games",
        "3",
        "--log-dir",
        str(tmp_path),
    )
    assert code == 0
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 3
    replay = subprocess.run([sys.executable, "-m", "games", "replay", *map(str, files)], capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.count(": ok ") == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["house:greedy", "--game", "face-to-face"], "face-to-face needs exactly 2 bots"),
        (["house:nobody", "house:greedy", "--game", "face-to-face"], "unknown house bot 'nobody'"),
        (["missing.py", "house:greedy", "--game", "face-to-face"], "neither house:NAME nor an existing"),
        (["house:greedy", "house:greedy", "--game", "the-game", "--players", "3"], "needs 1 or 3 bots"),
    ],
)
def test_it_names_what_is_wrong(capsys, args, message):
    code, _, err = run_cli(capsys, "play", *args, "--games", "1")
    assert code == 2
    assert message in err


def test_unsafe_no_sandbox_warns(tmp_path, capsys):
    bot = tmp_path / "mine.py"
    bot.write_text("def play(o):\n    h = o['hand']\n    return [[h[0], 'up1'], [h[1], 'up1']]\n")
    code, _, err = run_cli(capsys, "play", str(bot), "--game", "the-game", "--games", "1", "--unsafe-no-sandbox")
    assert code == 0
    assert "WARNING: --unsafe-no-sandbox" in err and "your own bot" in err
