"""`python -m bots upload` against a live server with a real Celery worker validating the uploads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

import bots.house

ROOT = Path(__file__).resolve().parents[2]
GREEDY = Path(bots.house.__file__).parent / "greedy.py"
CRASHER = b"def play(observation):\n    raise RuntimeError('crashes on purpose')\n"


def upload(server: str, token: str, bot: Path, name: str, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "bots", "upload", str(bot), "--name", name, "--game", "face-to-face"]
    command += ["--token", token, "--server", server, "--poll", "0.3", "--wait", "180", *extra]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)


@pytest.mark.slow
def test_the_cli_uploads_waits_and_reports(live_server, workers, django_user_model, tmp_path):
    worker = workers("w1", beat=False, ARENA_VALIDATION_GAMES="2")
    dora = django_user_model.objects.create_user("dora", password="correct horse battery")
    token = Token.objects.create(user=dora).key

    new_bot = upload(live_server.url, token, GREEDY, "greedy-copy")
    assert new_bot.returncode == 0, new_bot.stderr
    assert "uploaded greedy-copy v1" in new_bot.stdout and "greedy-copy v1 is active" in new_bot.stdout
    bot = dora.bots.get(name="greedy-copy")
    assert bot.active_version.number == 1

    crasher = tmp_path / "bot.py"
    crasher.write_bytes(CRASHER)
    failed = upload(live_server.url, token, crasher, "greedy-copy")  # a new version of the same bot
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "uploaded greedy-copy v2" in failed.stdout
    reason = bot.versions.get(number=2).failure_reason
    assert reason and f"failed: {reason}" in failed.stderr and "crashes on purpose" in failed.stderr

    broken = tmp_path / "broken.py"
    broken.write_bytes(b"def play(observation)\n")
    refused = upload(live_server.url, token, broken, "greedy-copy")
    assert refused.returncode == 1 and "failed: file: broken.py does not compile: line 1:" in refused.stderr
    assert bot.versions.count() == 2
    assert worker.poll() is None


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("bad token", "the server does not accept the token (Invalid token.)"),
        ("no server", "cannot reach http://127.0.0.1:9"),
        ("no file", "is not a file"),
        ("not a url", "--server must be an http(s) URL"),
        ("other game", "your bot mine plays face-to-face, not extreme"),
    ],
)
def test_usage_and_network_errors_exit_2(case, message, live_server, django_user_model, make_version):
    owner = django_user_model.objects.create_user("erin")
    make_version(owner, "mine")
    token = Token.objects.create(user=owner).key
    server, bot, extra = live_server.url, str(GREEDY), ["--game", "face-to-face"]
    if case == "bad token":
        token = "0" * 40
    elif case == "no server":
        server = "http://127.0.0.1:9"
    elif case == "no file":
        bot = "/nonexistent/bot.py"
    elif case == "not a url":
        server = "ftp://example"
    elif case == "other game":
        extra = ["--game", "extreme"]
    command = [sys.executable, "-m", "bots", "upload", bot, "--name", "mine", "--token", token, "--server", server]
    result = subprocess.run(command + extra, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr


def test_bots_never_import_the_league():
    source = (ROOT / "bots" / "upload.py").read_text()
    assert "league" not in {
        line.split()[1].split(".")[0] for line in source.splitlines() if line.startswith(("import ", "from "))
    }
    assert "django" not in source
