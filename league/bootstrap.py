"""A virtual environment for the checkout, made on first use: the set-up commands run on any Python >= 3.11.

Debian's own `python3` refuses `pip install` outside a virtual environment (PEP 668), so `manage.py` and
`tests/run.sh` install the project into `.venv/` in the checkout and run there. The environment is made
again when `pyproject.toml` changes (its hash is kept in `.venv/arena-installed`).

Standard library only: this runs before any dependency is installed, so it is loaded by path, not
imported through the `league` package (whose `__init__` needs Celery).

    python3 league/bootstrap.py [--extras test]   # prints the environment's python, installing if needed
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
MARKER = VENV / "arena-installed"
MIN_PYTHON = (3, 11)


class BootstrapError(RuntimeError):
    """The environment cannot be made here; the message says what to do."""


def venv_python() -> Path:
    return VENV / "bin" / "python"


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def _pyproject_hash() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def _installed() -> tuple[str, set[str]]:
    """(pyproject hash, extras) that .venv was installed with; ("", set()) when it never was."""
    if not venv_python().exists() or not MARKER.exists():
        return "", set()
    digest, *extras = MARKER.read_text().split()
    return digest, set(extras)


def _split(extras: str) -> set[str]:
    return {name.strip() for name in extras.split(",") if name.strip()}


def is_current(extras: str = "") -> bool:
    """True when .venv holds this pyproject's dependencies with at least these extras."""
    digest, have = _installed()
    return digest == _pyproject_hash() and _split(extras) <= have


def _make_venv() -> None:
    if sys.version_info < MIN_PYTHON:
        raise BootstrapError(
            f"Python {'.'.join(map(str, MIN_PYTHON))} or newer is needed; this is {sys.version.split()[0]}"
        )
    shutil.rmtree(VENV, ignore_errors=True)
    made = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
    if made.returncode == 0:
        return
    if "ensurepip" not in made.stderr + made.stdout:
        raise BootstrapError(f"python3 -m venv failed:\n{made.stderr or made.stdout}")
    # Debian and Ubuntu ship venv's pip bootstrap as a separate package.
    package = f"python3.{sys.version_info.minor}-venv"
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise BootstrapError(
            f"this Python cannot make virtual environments: install {package} (apt-get install {package})"
        )
    print(f"installing {package} (Python's venv module)", file=sys.stderr)
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", package]):
        subprocess.run(command, check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, stdout=sys.stderr)
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, stdout=sys.stderr)


def ensure(extras: str = "") -> Path:
    """Make or refresh .venv so it holds the project (editable) with `extras`; return its python."""
    if is_current(extras):
        return venv_python()
    wanted = _split(extras) | _installed()[1]  # keep what an earlier run installed (tests, then the demo)
    if not venv_python().exists():
        print(f"making a virtual environment in {VENV}", file=sys.stderr)
        _make_venv()
    target = f"{ROOT}[{','.join(sorted(wanted))}]" if wanted else str(ROOT)
    print(f"installing the project into {VENV} (first run, or pyproject.toml changed)", file=sys.stderr)
    subprocess.run(
        [str(venv_python()), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", target],
        check=True,
        stdout=sys.stderr,
    )
    MARKER.write_text(" ".join([_pyproject_hash(), *sorted(wanted)]) + "\n")
    return venv_python()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extras", default="", help="optional dependency groups, comma-separated (e.g. test)")
    args = parser.parse_args()
    try:
        print(ensure(args.extras))
    except (BootstrapError, subprocess.CalledProcessError) as error:
        print(f"bootstrap: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
