"""`manage.py demo` brings the whole league up on SQLite with no server, and Ctrl-C stops all of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bench.harness import listening_ports, unused_port

ROOT = Path(__file__).resolve().parents[2]


def alive(group: int) -> bool:
    """Whether any process of this process group still runs (zombies waiting to be reaped do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it exited while we looked
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            return True
    return False


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def start_demo(env: dict[str, str], tries: int = 5) -> tuple[subprocess.Popen, str, list[str]]:
    """`manage.py demo` on a port of its own, read until it says where it runs: (the process, its URL, what it
    printed). A port someone else took before the demo's web server bound it is chosen again: the demo's own
    process tree must listen on it, whoever else answers there."""
    for _ in range(tries):
        port = unused_port()
        demo = subprocess.Popen(
            [sys.executable, "manage.py", "demo", "--port", str(port), "--games", "2"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        printed = []
        for line in demo.stdout:
            printed.append(line)
            if f"The Game Arena runs at {url}" in line:
                break
            assert time.monotonic() < deadline, "".join(printed)
        if demo.poll() is None and port in listening_ports(demo.pid):
            return demo, url, printed
        demo.send_signal(signal.SIGINT)  # its web server lost the port (or never said where it runs)
        demo.communicate(timeout=60)
    pytest.fail(f"the demo never served a port of its own in {tries} tries:\n{''.join(printed)}")


@pytest.mark.slow
def test_demo_serves_the_league_and_ctrl_c_stops_everything(tmp_path):
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "ARENA_QUEUE", "DEBUG")
    }
    env["ARENA_DATA_DIR"] = str(tmp_path / "data")
    demo, url, printed = start_demo(env)
    children: list[int] = []
    try:
        # The address comes once the server answers, after the admin login and the logs' whereabouts.
        status, page = get(f"{url}tournaments/")
        assert status == 200 and "Demo: house bots round robin" in page
        assert "user admin, password arena-demo" in printed[-2], printed
        logs = tmp_path / "data" / "logs"
        assert f"logs: {logs / 'worker.log'}" in "".join(printed)
        children = [int(pid) for pid in subprocess.check_output(["pgrep", "-P", str(demo.pid)]).split()]
        assert len(children) == 2  # the worker (with its clock) and the web server
        # Production-like: the site's own 404 page, static files served all the same.
        status, missing = get(f"{url}no/such/page/")
        assert status == 404 and "Nothing here" in missing and "Traceback" not in missing
        status, icon = get(f"{url}static/arena/favicon.svg")
        assert status == 200 and "<svg" in icon
        assert get(f"{url}static/admin/css/base.css")[0] == 200
        assert (tmp_path / "data" / "arena.sqlite3").exists()
        assert (tmp_path / "data" / "broker").is_dir()
        assert (logs / "worker.log").exists() and "GET /tournaments/" in (logs / "web.log").read_text()
    finally:
        demo.send_signal(signal.SIGINT)
        output, _ = demo.communicate(timeout=60)
    assert demo.returncode == 0, output
    assert output.lstrip().startswith("Stopping"), f"something was printed after the address: {output!r}"
    assert "Stopped." in output
    assert children and not any(alive(pid) for pid in children)


def test_the_demo_opens_a_season_of_each_coop_game_and_reuses_it_and_its_tournament_on_restart(db, settings, sent):
    from league.arena.coop import challenges
    from league.arena.management.commands import demo as demo_command
    from league.arena.models import COOP_GAMES, Match, Season, Tournament

    settings.ARENA_COOP_MAX_PENDING = 100
    tournament, seasons = demo_command.prepare("pw", games=2)
    assert sorted(season.game for season in seasons) == sorted(COOP_GAMES)
    assert all(season.current and season.team_sizes == [1, 2, 3] for season in seasons)
    # the house bots' first matches of each season are small (5 deals), so results show within a minute or two
    for game in COOP_GAMES:
        queued = challenges.schedule(game)
        assert queued and all(match.games == 5 for match in queued), game
    again, seasons_again = demo_command.prepare("pw", games=2)  # a restart
    assert again.pk == tournament.pk and Tournament.objects.filter(name=demo_command.DEMO_TOURNAMENT).count() == 1
    assert [s.pk for s in seasons_again] == [s.pk for s in seasons] and Season.objects.count() == len(COOP_GAMES)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    assert demo_command.prepare("pw", games=2)[0].pk == tournament.pk  # finished: shown, not made again
    assert Match.objects.filter(kind="ladder", game="the-game").exists()
