"""`python -m bots play BOT... --from LOG --turn N`: games that start where a logged game stood before turn N, with the
same deal, the same hands and the same order of what is left of the draw piles."""

import json

import pytest

import games
from bots.__main__ import main


@pytest.fixture
def logged(tmp_path, capsys):
    def make(game="face-to-face", bots=("house:greedy", "house:random"), players=None):
        logs = tmp_path / f"source-{game}"
        args = ["play", *bots, "--game", game, "--games", "1", "--seed", "from", "--log-dir", str(logs)]
        if players:
            args += ["--players", str(players)]
        assert main(args) == 0
        capsys.readouterr()
        return logs / "game-000001.json"

    return make


def play_from(tmp_path, capsys, *args):
    out = tmp_path / "from"
    code = main(["play", *args, "--log-dir", str(out), "--json"])
    captured = capsys.readouterr()
    return code, captured, out


def test_games_start_from_the_logged_position(logged, tmp_path, capsys):
    source = logged()
    log = json.loads(source.read_text())
    code, captured, out = play_from(
        tmp_path, capsys, "house:expert", "house:expert", "--from", str(source), "--turn", "7"
    )
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["games"] == 1 and summary["game"] == "face-to-face"
    new = json.loads((out / "game-000001.json").read_text())
    assert new["decks"] == log["decks"] and new["start_seat"] == log["start_seat"] and new["seed"] == log["seed"]
    assert new["dealt_from_seed"] == log["dealt_from_seed"]
    assert new["turns"][:6] == log["turns"][:6]
    assert [seat["bot"] for seat in new["seats"]] == ["house:expert", "house:expert"]
    games.replay(new)
    before = games.position_before(log, 7)
    again = games.position_before(new, 7)
    assert before.hands == again.hands and before.draw_piles_reversed == again.draw_piles_reversed


def test_coop_takes_the_game_and_seats_from_the_log(logged, tmp_path, capsys):
    source = logged("extreme", ("house:greedy",), players=3)
    code, captured, out = play_from(
        tmp_path, capsys, "house:expert", "--from", str(source), "--turn", "4", "--games", "2"
    )
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["game"] == "extreme" and summary["players"] == 3 and summary["games"] == 2
    for path in sorted(out.glob("*.json")):
        new = json.loads(path.read_text())
        assert new["turns"][:3] == json.loads(source.read_text())["turns"][:3]
        games.replay(new)


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--turn", "0"], "it has turns 1 to"),
        (["--turn", "100000"], "it has turns 1 to"),
        ([], "--from needs --turn"),
        (["--turn", "3", "--game", "the-game"], "is a game of face-to-face, not the-game"),
        (["--turn", "3", "--duplicate"], "--duplicate does not apply"),
    ],
)
def test_it_names_what_is_wrong(logged, tmp_path, capsys, extra, message):
    source = logged()
    code, captured, _ = play_from(tmp_path, capsys, "house:greedy", "house:greedy", "--from", str(source), *extra)
    assert code == 2 and message in captured.err


def test_a_finished_position_or_a_broken_log_is_refused(logged, tmp_path, capsys):
    source = logged()
    log = json.loads(source.read_text())
    last = len(log["turns"]) + 1
    code, captured, _ = play_from(
        tmp_path, capsys, "house:greedy", "house:greedy", "--from", str(source), "--turn", str(last)
    )
    assert code == 2 and "the game is over before turn" in captured.err
    log["turns"][2]["plays"] = [[99, "p0.up"]]
    source.write_text(json.dumps(log))
    code, captured, _ = play_from(
        tmp_path, capsys, "house:greedy", "house:greedy", "--from", str(source), "--turn", "2"
    )
    assert code == 2 and "does not replay" in captured.err
    code, captured, _ = play_from(
        tmp_path, capsys, "house:greedy", "house:greedy", "--turn", "2", "--game", "face-to-face"
    )
    assert code == 2 and "--turn needs --from" in captured.err
