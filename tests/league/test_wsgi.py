"""The WSGI entry point loads every view and keeps the loaded app out of the cyclic collector's sight."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SERVER = """
import gc, sys
before = gc.get_freeze_count()
import league.wsgi
print(before, gc.get_freeze_count(), "league.arena.tournaments.views" in sys.modules)
"""


def test_a_server_process_loads_the_views_and_freezes_what_it_loaded(tmp_path):
    environ = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    environ.update(ARENA_DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="league.settings")
    done = subprocess.run(
        [sys.executable, "-c", SERVER], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    before, frozen, views_loaded = done.stdout.split()
    assert before == "0" and int(frozen) > 50_000  # Django, the settings, the models, the URLs and their views
    assert views_loaded == "True"
