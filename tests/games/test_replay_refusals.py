"""`python -m games replay` refuses a tampered real log, with exit code 1 and a message naming the turn or
field that is wrong: a co-op start seat that is not the seed's lot, an Extreme command table that is not
7 commands of 4 distinct cards, a bot failure after the first turn blamed on a seat not to move, and a
winner, score or seat that is not an integer. The logs are written by `python -m bots play --log-dir`."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import mirror_of
from rules_oracle import Policy

import games
from games.__main__ import main

REPO = Path(__file__).resolve().parents[2]

# Two seats of this bot play the two opening turns (one on up1, the other on down1: both always legal),
# then the first seat crashes on its second turn, turn 3.
CRASHES_ON_ITS_THIRD_TURN = """
def play(observation):
    hand = sorted(observation["hand"])
    if observation["turn"] == 0:
        return [[hand[0], "up1"], [hand[1], "up1"]]
    if observation["turn"] == 1:
        return [[hand[-1], "down1"], [hand[-2], "down1"]]
    raise RuntimeError("out of ideas")
"""


def bots_play(log_dir: Path, *args: str) -> list[dict[str, Any]]:
    """Play a match with `python -m bots play` and return its logs in game order."""
    command = [sys.executable, "-m", "bots", "play", *args, "--games", "3", "--seed", "refusals"]
    done = subprocess.run(
        [*command, "--log-dir", str(log_dir)], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    files = sorted(log_dir.glob("*.json"), key=lambda path: int(path.stem.rsplit("-", 1)[-1]))
    assert len(files) == 3
    return [json.loads(path.read_text(encoding="utf-8")) for path in files]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp("logs")
    crasher = root / "crasher.py"
    crasher.write_text(textwrap.dedent(CRASHES_ON_ITS_THIRD_TURN), encoding="utf-8")
    return {
        "the-game": bots_play(root / "coop", *["house:greedy"] * 3, "--game", "the-game"),
        "extreme": bots_play(root / "extreme", "house:random", "house:greedy", "--game", "extreme"),
        "face-to-face": bots_play(root / "f2f", "house:greedy", "house:random", "--game", "face-to-face"),
        "crash": bots_play(root / "crash", str(crasher), str(crasher), "--game", "the-game", "--unsafe-no-sandbox"),
    }


def lot(players: int, seed: str) -> int:
    """The starting seat as docs/game-log.md specifies it (label `start`), written from that text alone."""
    digest = hashlib.shake_256(f"thegame-arena/v1|start|{seed}".encode()).digest(8)
    return (struct.unpack("<Q", digest)[0] * players) >> 64


def refused(log: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Run `python -m games replay` on `log`; it must exit 1. Return what it said."""
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    code = main(["replay", str(path)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith(f"{path}: MISMATCH "), err
    return err


def test_the_real_logs_replay(logs: dict[str, list[dict[str, Any]]]) -> None:
    for game_logs in logs.values():
        for log in game_logs:
            assert games.replay(copy.deepcopy(log)).to_json() == log["result"]


def test_the_runner_starts_a_coop_game_on_the_seeds_lot(logs: dict[str, list[dict[str, Any]]]) -> None:
    for log in logs["the-game"] + logs["extreme"] + logs["crash"]:
        assert log["start_seat"] == lot(log["options"]["players"], log["seed"])
        assert log["turns"][0]["seat"] == log["start_seat"]


def other_seat(log: dict[str, Any], seat: int) -> int:
    return (seat + 1) % log["options"]["players"]


def test_a_coop_start_seat_that_is_not_the_seeds_lot_is_refused(
    logs: dict[str, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for log in logs["the-game"][:2] + logs["extreme"][:1]:
        tampered = copy.deepcopy(log)
        expected = log["start_seat"]
        tampered["start_seat"] = other_seat(log, expected)
        message = refused(tampered, tmp_path, capsys)
        assert "start_seat" in message
        assert f"draws seat {expected} " in message and f"starts with seat {tampered['start_seat']}" in message


def test_a_whole_coop_game_started_on_seat_0_against_the_lot_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the runner wrote before it drew the co-op start seat: a game that is otherwise consistent."""
    seed = next(f"old-runner:{n}" for n in range(100) if lot(3, f"old-runner:{n}") != 0)
    state = games.new_game("the-game", players=3, seed=seed, start_seat=0)
    mirror, policy = mirror_of(state), Policy(random.Random(seed), care=0.9, eager=1)
    while state.outcome is None:
        plays, signals = policy.turn(mirror)
        state.push({"plays": [list(play) for play in plays], "signals": signals})
        mirror.apply(plays, signals)
    message = refused(state.log.to_json(), tmp_path, capsys)
    assert f"draws seat {lot(3, seed)} " in message and "starts with seat 0" in message


def test_face_to_face_keeps_the_runners_start_seat(logs: dict[str, list[dict[str, Any]]]) -> None:
    """The runner alternates who starts by seating the bots the other way round; seat 0 always starts."""
    f2f = logs["face-to-face"]
    assert [log["start_seat"] for log in f2f] == [0, 0, 0]
    assert [log["seats"][0]["bot"] for log in f2f] == ["house:greedy", "house:random", "house:greedy"]


TABLE_TAMPERINGS = [
    ("a command missing", lambda table: table.pop("draw-one"), "lacks draw-one"),
    ("an unknown command", lambda table: table.update(joker=table.pop("draw-one")), "unknown command(s) ['joker']"),
    ("three cards", lambda table: table["stop"].pop(), "gives stop the cards [4, 28, 53]"),
    ("five cards", lambda table: table["skull"].append(99), "gives skull the cards [7, 32, 56, 81, 99]"),
    ("a repeated card", lambda table: table["three"].__setitem__(3, 11), "gives three the cards [11, 35, 60, 11]"),
    ("a card that is not an integer", lambda table: table["silence"].__setitem__(0, 14.0), "silence the cards"),
]


@pytest.mark.parametrize(("case", "tamper", "named"), TABLE_TAMPERINGS, ids=[case for case, *_ in TABLE_TAMPERINGS])
def test_an_extreme_command_table_that_is_not_7_commands_of_4_cards_is_refused(
    logs: dict[str, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, tamper, named
) -> None:
    log = copy.deepcopy(logs["extreme"][0])
    tamper(log["options"]["command_table"])
    message = refused(log, tmp_path, capsys)
    assert "command table" in message and named in message
    assert "7 commands of 4 distinct cards each" in message


def test_an_extreme_log_without_its_command_table_is_refused(
    logs: dict[str, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = copy.deepcopy(logs["extreme"][0])
    log["options"]["command_table"] = None
    assert "the command table must be an object" in refused(log, tmp_path, capsys)


def test_a_bot_failure_after_the_first_turn_blamed_on_a_seat_not_to_move_is_refused(
    logs: dict[str, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for log in logs["crash"]:
        assert log["result"]["termination"] == "crash" and len(log["turns"]) == 2
        tampered = copy.deepcopy(log)
        blamed = tampered["result"]["seat"] = other_seat(log, log["result"]["seat"])
        message = refused(tampered, tmp_path, capsys)
        assert f"turn 3: the log blames seat {blamed} for a crash" in message
        assert f"seat {log['result']['seat']} was to move" in message


def test_a_bot_failure_before_the_first_turn_may_blame_any_seat(tmp_path: Path) -> None:
    """Starting the bots comes before the first turn: a seat not to move can fail there."""
    state = games.new_game("the-game", players=3, seed="startup")
    blamed = (state.to_move + 1) % 3
    state.forfeit(blamed, games.Termination.TIMEOUT, "new_game took too long")
    assert games.replay(state.log.to_json()) == state.outcome


NOT_INTEGERS = [False, True, 1.0, 0.0, "1"]


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
@pytest.mark.parametrize(
    ("game", "field"), [("face-to-face", "winner"), ("face-to-face", "seat"), ("the-game", "seat")]
)
def test_a_winner_or_seat_that_is_not_an_integer_is_refused(
    logs: dict[str, list[dict[str, Any]]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    game: str,
    field: str,
    value: Any,
) -> None:
    log = next(log for log in logs[game] if log["result"][field] is not None)
    tampered = copy.deepcopy(log)
    tampered["result"][field] = value
    message = refused(tampered, tmp_path, capsys)
    assert f"result: {field} must be an integer or null, not {value!r}" in message


@pytest.mark.parametrize("value", [False, 0.0, None], ids=repr)
def test_a_start_seat_or_turn_seat_that_is_not_an_integer_is_refused(
    logs: dict[str, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str], value: Any
) -> None:
    log = next(log for log in logs["face-to-face"] if log["start_seat"] == 0)
    start = copy.deepcopy(log)
    start["start_seat"] = value
    assert f"start_seat must be an integer seat, not {value!r}" in refused(start, tmp_path, capsys)
    turn = copy.deepcopy(log)
    turn["turns"][1]["seat"] = value if value is not None else "1"
    assert "turn 2: the turn's seat must be an integer" in refused(turn, tmp_path, capsys)


def test_the_command_line_exits_1_on_a_refused_log(logs: dict[str, list[dict[str, Any]]], tmp_path: Path) -> None:
    log = copy.deepcopy(logs["face-to-face"][0])
    log["result"]["winner"] = bool(log["result"]["winner"])
    path = tmp_path / "false-winner.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "games", "replay", str(path)], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "result: winner must be an integer or null" in done.stderr
