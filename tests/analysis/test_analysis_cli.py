"""`python -m bots analyse LOG... [--rollouts N] [--seed S] [--json]`: a table for people, JSON lines for programs,
and a clear word for a log it cannot use."""

import json

import pytest

from bots.__main__ import main
from bots.analysis.cli import parse_turns


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    assert main(["play", "house:greedy", "house:expert", "--game", "face-to-face", "--games", "2", "--seed", "cli",
                 "--log-dir", str(folder)]) == 0  # fmt: skip
    return sorted(folder.glob("*.json"))


def test_the_table_shows_every_turn_and_each_seats_accuracy(logs, capsys):
    capsys.readouterr()
    assert main(["analyse", str(logs[0]), "--rollouts", "8", "--turns", "1-6"]) == 0
    out = capsys.readouterr().out
    assert "turn seat  played" in out and "before" in out and "mark" in out
    rows = [line for line in out.splitlines() if line[:4].strip().isdigit()]
    assert [int(row[:4]) for row in rows] == [1, 2, 3, 4, 5, 6]
    assert "seat 0 (house:greedy): accuracy" in out and "seat 1 (house:expert): accuracy" in out


def test_json_prints_one_object_per_log(logs, capsys):
    capsys.readouterr()
    assert main(["analyze", *map(str, logs), "--json", "--rollouts", "8", "--seed", "7", "--turns", "2,4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for path, line in zip(logs, lines, strict=True):
        analysis = json.loads(line)
        assert analysis["log"] == str(path) and analysis["game"] == "face-to-face"
        assert [seat["seat"] for seat in analysis["seats"]] == [0, 1]
        assert [turn["turn"] for turn in analysis["turns"]] == [2, 4]
        assert set(analysis["accuracy"]) == {"0", "1"}


def test_an_unreadable_or_tampered_log_is_named_and_the_others_are_still_analysed(logs, tmp_path, capsys):
    tampered = tmp_path / "tampered.json"
    log = json.loads(logs[0].read_text())
    log["turns"][0]["plays"][0][0] = 77
    tampered.write_text(json.dumps(log))
    missing = tmp_path / "missing.json"
    capsys.readouterr()
    code = main(["analyse", str(missing), str(tampered), str(logs[1]), "--json", "--rollouts", "4", "--turns", "1"])
    captured = capsys.readouterr()
    assert code == 2
    assert f"{missing}: cannot read" in captured.err and f"{tampered}: MISMATCH" in captured.err
    assert json.loads(captured.out)["log"] == str(logs[1])


@pytest.mark.parametrize(
    "args,message",
    [
        (["--rollouts", "1"], "at least 2 rollouts"),
        (["--horizon", "-1"], "horizon"),
        (["--turns", "3-1"], "is not a range of turns"),
        (["--turns", "x"], "write turn numbers and ranges"),
    ],
)
def test_bad_options_are_named(logs, capsys, args, message):
    capsys.readouterr()
    assert main(["analyse", str(logs[0]), *args]) == 2
    assert message in capsys.readouterr().err


def test_parse_turns():
    assert parse_turns("5,7,10-12") == {5, 7, 10, 11, 12}
