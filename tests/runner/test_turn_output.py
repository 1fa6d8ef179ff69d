"""What a bot writes during each turn, and its think time, are recorded per turn for its owner (GameResult.turn_output,
the .output.jsonl file beside each --log-dir log), bounded per turn and per game; the public log holds none of it."""

import json
import shutil

import pytest

from bots.__main__ import main
from bots.match import BotSpec, MatchSpec, run_match
from bots.sandbox import seccomp
from bots.turn_output import GAME_CAP, TURN_CAP, TurnOutputs, bounded, with_failure_detail

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or not seccomp.available(), reason="needs bubblewrap and libseccomp"
)

CHATTY = """\
import sys

def new_game(info):
    print("setting up seat", info["seat"], file=sys.stderr)

def play(observation):
    print("thinking about turn", observation["turn"], file=sys.stderr)
    print("stdout counts too", observation["turn"])
    if observation["turn"] in (4, 5):
        sys.stderr.write("z" * 10_000)
    seat = observation["seat"]
    up = observation["piles"][f"p{seat}.up"]["top"]
    down = observation["piles"][f"p{seat}.down"]["top"]
    plays = []
    for card in sorted(observation["hand"]):
        if len(plays) == 2:
            break
        if card > up:
            plays.append([card, f"p{seat}.up"])
            up = card
        elif card < down:
            plays.append([card, f"p{seat}.down"])
            down = card
    if observation["turn"] >= 8:
        raise RuntimeError("gave up at turn " + str(observation["turn"]))
    return {"plays": plays}
"""


def chatty_match(tmp_path, sandbox):
    bot = tmp_path / "chatty.py"
    bot.write_text(CHATTY)
    spec = MatchSpec("face-to-face", [BotSpec(str(bot)), BotSpec("house:greedy")], games=1, seed="out", sandbox=sandbox)
    return run_match(spec).games[0]


def check_records(game):
    records = game.turn_output
    assert records[0] == {"turn": 0, "seat": 0, "bot": records[0]["bot"], "ms": None, "stderr": "setting up seat 0\n"}
    turns = [record for record in records if record["turn"] > 0]
    assert [record["turn"] for record in turns] == list(range(1, len(game.log["turns"]) + 2, 2))
    assert all(record["seat"] == 0 and record["ms"] >= 0 for record in turns)
    first = turns[0]["stderr"]
    assert "thinking about turn 0" in first and "stdout counts too 0" in first
    long_turn = next(record for record in turns if "z" * 100 in record["stderr"])
    assert len(long_turn["stderr"]) <= TURN_CAP + 60 and "characters dropped" in long_turn["stderr"]
    crashed = turns[-1]
    assert "thinking about turn 8" in crashed["stderr"] and "gave up at turn 8" in crashed["stderr"]
    assert "RuntimeError" in crashed["stderr"]
    public = json.dumps(game.log)
    assert "thinking" not in public and "setting up" not in public and "gave up" not in public


def test_an_unsandboxed_bots_output_is_recorded_turn_by_turn(tmp_path):
    check_records(chatty_match(tmp_path, sandbox=False))


@needs_sandbox
def test_a_sandboxed_bots_output_is_recorded_turn_by_turn(tmp_path):
    check_records(chatty_match(tmp_path, sandbox=True))


def test_house_bots_record_nothing():
    spec = MatchSpec("face-to-face", [BotSpec("house:greedy"), BotSpec("house:expert")], games=2)
    assert all(game.turn_output == [] for game in run_match(spec).games)


def test_log_dir_writes_the_output_beside_the_log_and_replay_globs_only_logs(tmp_path, capsys):
    bot = tmp_path / "chatty.py"
    bot.write_text(CHATTY)
    logs = tmp_path / "logs"
    args = ["play", str(bot), "house:greedy", "--game", "face-to-face", "--games", "2", "--log-dir", str(logs)]
    assert main([*args, "--unsafe-no-sandbox"]) == 0
    assert sorted(path.name for path in logs.iterdir()) == [
        "game-000001.json",
        "game-000001.output.jsonl",
        "game-000002.json",
        "game-000002.output.jsonl",
    ]
    records = [json.loads(line) for line in (logs / "game-000002.output.jsonl").read_text().splitlines()]
    assert {record["seat"] for record in records} == {1}  # the bots changed seats
    assert "thinking about turn" in records[1]["stderr"]
    from games.__main__ import main as games_main

    capsys.readouterr()
    assert games_main(["replay", *map(str, sorted(logs.glob("*.json")))]) == 0


def test_a_game_keeps_at_most_its_cap_and_then_counts_what_it_dropped():
    outputs = TurnOutputs()
    for turn in range(1, 40):
        outputs.add(turn, 0, "bot", 1.0, "w" * 1500)
    kept = sum(len(record["stderr"]) for record in outputs.records)
    assert kept <= GAME_CAP
    assert outputs.records[-1] == {"turn": 39, "seat": 0, "bot": "bot", "ms": 1.0, "dropped": 1500, "stderr": ""}


def test_bounded_keeps_the_start_and_the_end_and_makes_text_storable():
    text = "start" + "m" * 5000 + "end"
    cut = bounded(text, 100)
    assert cut.startswith("start") and cut.endswith("end") and "4908 characters dropped" in cut
    assert bounded("a\x00b\ud800", 100) == "ab\\ud800"


def test_a_failures_detail_is_added_once():
    assert with_failure_detail("out\nTraceback: x\n", "Traceback: x\n") == "out\nTraceback: x\n"
    assert with_failure_detail("out\nlast line\n", "last line\nreply was junk\n") == "out\nlast line\nreply was junk\n"
    assert with_failure_detail("", "Traceback\n") == "Traceback\n"
