"""`python -m bots new FILE --game G`: the starter bot to begin with, never over a file that exists."""

from pathlib import Path

import pytest

import games
from bots.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", games.GAME_IDS)
def test_it_writes_the_games_starter_which_plays(tmp_path, capsys, game):
    bot = tmp_path / "my_bot.py"
    assert main(["new", str(bot), "--game", game]) == 0
    starter = {"face-to-face": "face_to_face.py", "the-game": "the_game.py", "extreme": "extreme.py"}[game]
    assert bot.read_text() == (ROOT / "docs" / "starters" / starter).read_text()
    assert f"python -m bots play {bot} house:greedy --game {game}" in capsys.readouterr().out
    code = main(["play", str(bot), "house:greedy", "--game", game, "--games", "2", "--unsafe-no-sandbox", "--json"])
    assert code == 0


def test_it_never_overwrites_a_file(tmp_path, capsys):
    bot = tmp_path / "mine.py"
    bot.write_text("# my work\n")
    assert main(["new", str(bot), "--game", "face-to-face"]) == 2
    assert bot.read_text() == "# my work\n"
    assert "exists" in capsys.readouterr().err


def test_it_names_a_directory_that_is_not_there(tmp_path, capsys):
    assert main(["new", str(tmp_path / "no" / "bot.py"), "--game", "extreme"]) == 2
    assert "No such file or directory" in capsys.readouterr().err
