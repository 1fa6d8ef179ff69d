"""The author's kit installed as an author installs it: a fresh virtual environment without the server's dependencies.

One environment for the module (making it is the slow part). Every command runs from a folder outside the
checkout, so `python -m bots` is the kit's, never the checkout's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

import games
from bots import kit
from bots.__main__ import main as bots_main
from bots.match import BotSpec, MatchSpec, run_match
from tests.league.replay_helpers import played_log, store_game, versions_for

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kit_python(tmp_path_factory, live_server) -> Path:
    """The python of a fresh virtual environment holding only the kit (and what pip brings for it), installed as the
    site's /docs/kit/ page tells an author to: pip install straight from the download link."""
    place = tmp_path_factory.mktemp("kit-env")
    page = urllib.request.urlopen(f"{live_server.url}/docs/kit/").read().decode()
    link = re.search(r'<a href="(http://[^"]+/docs/kit/(thegame_arena_kit-[^"/]+\.whl))" download>', page)
    assert link, "the kit page links to the wheel"
    assert f"pip install {link[1]}" in page, "the first line of instructions installs what the page offers"
    served = urllib.request.urlopen(link[1]).read()
    assert hashlib.sha256(served).hexdigest() in page
    assert served == kit.build(place / "dist").read_bytes(), "the site serves the wheel of its own sources"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(place / "venv")], check=True)
    python = place / "venv" / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", link[1]], check=True, capture_output=True)
    return python


@pytest.fixture
def author(kit_python, tmp_path):
    """author(*args) runs `python -m ARGS` with the kit's python in a folder of the author's."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(kit_python), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )

    run.folder = tmp_path
    return run


def test_the_kit_has_no_server_inside(author):
    for module in ("django", "celery", "league", "numpy"):
        assert author("-c", f"import {module}").returncode != 0, module
    where = author("-c", "import bots, games; print(bots.__file__); print(games.__file__)")
    assert all("site-packages" in line for line in where.stdout.split())
    assert author("-m", "pip", "check").returncode == 0
    version = author("-m", "bots", "--version").stdout.strip()
    assert version == f"thegame-arena-kit {kit.read_kit().version}"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the sandbox needs bubblewrap")
def test_a_starter_plays_a_house_bot_in_the_sandbox_and_its_logs_replay(author):
    assert author("-m", "bots", "new", "my_bot.py", "--game", "face-to-face").returncode == 0
    played = author(
        "-m", "bots", "play", "my_bot.py", "house:greedy", "--game", "face-to-face", "--games", "4", "--duplicate",
        "--log-dir", "logs", "--json",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    assert summary["sandbox"] is True and summary["games"] == 4
    assert sum(bot["wins"] for bot in summary["bots"]) == 4
    logs = sorted((author.folder / "logs").glob("game-*.json"))
    assert len(logs) == 4
    replayed = author("-m", "games", "replay", *map(str, logs))
    assert replayed.returncode == 0 and replayed.stdout.count(": ok face-to-face") == 4
    for log in logs:  # the server's engine accepts what the kit wrote
        games.replay(games.read_log(log))


def test_the_kits_runner_writes_the_servers_logs(author):
    bots, seed = ("house:expert", "house:greedy"), "kit-vs-server"
    played = author(
        "-m", "bots", "play", *bots, "--game", "face-to-face", "--games", "3", "--seed", seed, "--log-dir", "logs"
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    server = run_match(MatchSpec(game="face-to-face", bots=[BotSpec(ref) for ref in bots], games=3, seed=seed))
    for index, game in enumerate(server.games):
        kit_log = json.loads((author.folder / "logs" / f"game-{index + 1:06d}.json").read_text())
        assert without_times(kit_log) == without_times(game.log)


def without_times(log: dict) -> dict:
    """The log but each turn's think time (milliseconds measured on the machine that played)."""
    return {**log, "turns": [{key: value for key, value in turn.items() if key != "ms"} for turn in log["turns"]]}


def test_the_kits_sprt_reaches_the_servers_numbers(author, capsys):
    args = ["sprt", "house:greedy", "house:random", "--game", "face-to-face", "--max-games", "16", "--seed", "kit"]
    tested = author("-m", "bots", *args, "--json")
    assert tested.returncode in (0, 1, 3), tested.stderr  # H1, H0, no verdict at the cap
    assert bots_main([*args, "--json"]) == tested.returncode
    server = json.loads(capsys.readouterr().out)
    kit_result = json.loads(tested.stdout)
    assert kit_result["games"] == 16 and sum(kit_result["pentanomial"]) == kit_result["pairs"] == 8
    assert {**kit_result, "elapsed_s": 0} == {**server, "elapsed_s": 0}


def test_a_log_downloaded_from_a_running_site_replays_in_the_kit(author, live_server, django_user_model, make_version):
    owners = [django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob")]
    log = played_log("extreme", "kit-download", ("house:expert", "house:greedy"))
    game = store_game(log, versions_for(log, owners, make_version))
    page = urllib.request.urlopen(f"{live_server.url}/games/{game.pk}/").read().decode()
    link = re.search(r'<a href="([^"]+)" download="(game-\d+\.json)">Download the JSON log</a>', page)
    assert link, "the replay page offers its log for download"
    (author.folder / link[2]).write_bytes(urllib.request.urlopen(live_server.url + link[1]).read())
    replayed = author("-m", "games", "replay", link[2])
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.startswith(f"{link[2]}: ok extreme")
    shown = author("-m", "games", "show", link[2])
    assert shown.returncode == 0 and "house:expert" in shown.stdout
