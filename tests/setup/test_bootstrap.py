"""The README's set-up on a Python without the project's dependencies (as Debian's own python3 is)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _checkout_copy(destination: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    for name in files.stdout.splitlines():
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def _bare_python() -> list[str]:
    """The base interpreter with site-packages switched off: Django cannot be imported."""
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    command = [str(base), "-S"]
    probe = subprocess.run([*command, "-c", "import django"], capture_output=True)
    assert probe.returncode != 0, "the bare interpreter still imports Django"
    return command


@pytest.mark.slow
def test_manage_py_makes_its_own_environment_and_runs_there(tmp_path):
    checkout = _checkout_copy(tmp_path / "arena")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "DATABASE_URL", "CELERY_BROKER_URL")}
    env["ARENA_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [*_bare_python(), "manage.py", "check"], cwd=checkout, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "System check identified no issues" in done.stdout
    assert "making a virtual environment" in done.stderr
    assert (checkout / ".venv" / "arena-installed").read_text().split()[0]

    again = subprocess.run(
        [*_bare_python(), "manage.py", "check"], cwd=checkout, env=env, capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert "installing" not in again.stderr  # made once, reused while pyproject.toml is unchanged


def test_bootstrap_says_what_to_install_when_python_is_too_old(monkeypatch, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("arena_bootstrap_test", ROOT / "league" / "bootstrap.py")
    bootstrap = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bootstrap)
    monkeypatch.setattr(bootstrap, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(bootstrap, "MIN_PYTHON", (99, 0))
    with pytest.raises(bootstrap.BootstrapError, match="Python 99.0 or newer is needed"):
        bootstrap._make_venv()
