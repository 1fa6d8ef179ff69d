#!/usr/bin/env python3
"""Django's command-line utility for The Game Arena league server.

Run with a Python that lacks the project's dependencies (Debian's own python3, say), it first installs
the project into the checkout's `.venv/` (league/bootstrap.py) and runs itself again from there.
"""

import importlib.util
import os
import sys
from pathlib import Path


def _load_bootstrap():
    spec = importlib.util.spec_from_file_location(
        "arena_bootstrap", Path(__file__).resolve().parent / "league" / "bootstrap.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _use_environment() -> None:
    """Keep this Python if it has the dependencies; otherwise run in the checkout's .venv."""
    bootstrap = _load_bootstrap()
    if bootstrap.in_venv():
        if not bootstrap.is_current():
            bootstrap.ensure()
        return
    try:
        import django  # noqa: F401
    except ImportError:
        try:
            python = bootstrap.ensure()
        except (bootstrap.BootstrapError, OSError, bootstrap.subprocess.CalledProcessError) as error:
            sys.exit(f"manage.py: cannot set up the project's environment: {error}")
        os.execv(python, [str(python), *sys.argv])


def main() -> None:
    _use_environment()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
