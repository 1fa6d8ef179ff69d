"""`python3 -m games|bots|bench.NAME` from a checkout, with a Python that lacks the dependencies, runs in its .venv.

Debian's own python3 has no orjson. `manage.py` installs the project into the checkout's `.venv/` on first use
(league/bootstrap.py, loaded by path: a file of the checkout, not an import of the league package) and runs itself
again there. The commands of games/, bots/ and bench/ do the same, with the same notices, when games/__init__.py
first runs in them (every command imports games before any dependency: bench/__init__.py asks at once). They keep
their exit codes: when the environment cannot be made they exit 2 (usage or environment), never 1 ("refused",
"mismatch").

bots/__init__.py stays empty on purpose: a house bot's version hashes every project module its loading executes.
The author's kit (an installed wheel) has no checkout around it: pip brought its dependencies, so only a broken
install reaches the message here. Standard library only: this runs before any dependency is imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

CHECKOUT = Path(__file__).resolve().parent.parent
ENVIRONMENT_FAILED = 2  # the commands' code for a usage or environment error
# What a `python -m PACKAGE...` command needs, and the pyproject extras that bring it (the page benches drive Chromium).
COMMANDS: dict[str, tuple[tuple[str, ...], str]] = {
    "games": (("orjson",), ""),
    "bots": (("orjson",), ""),
    "bench": (("orjson", "django", "playwright"), "test"),
}


def ensure_dependencies() -> None:
    """In a `python -m` command of COMMANDS: return when what it needs imports; else run the same command line in
    the checkout's .venv, or exit 2 saying why not.

    Any other program (a test, the server, a script importing the engine) keeps its interpreter and, lacking a
    dependency, sees the ordinary ImportError.
    """
    command = _running_module().split(".")[0]
    if command not in COMMANDS:
        return
    modules, extras = COMMANDS[command]
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    bootstrap = _checkout_bootstrap()
    if bootstrap is None:
        if missing:
            _fail(f"missing {', '.join(missing)}: install the kit with pip into a virtual environment")
        return
    if bootstrap.in_venv():  # as manage.py does: refresh the environment when pyproject.toml changed
        if not bootstrap.is_current(extras):
            _ensure(bootstrap, extras)
            missing = [name for name in modules if importlib.util.find_spec(name) is None]
        if missing:
            _fail(f"{bootstrap.VENV} lacks {', '.join(missing)}: remove it and run again")
        return
    if missing:
        python = _ensure(bootstrap, extras)
        os.execv(python, [str(python), *sys.orig_argv[1:]])


def _running_module() -> str:
    """The module named after `-m` on this interpreter's command line (`bots`, `bench.scale`, ...), else ""."""
    arguments = sys.orig_argv[1:]
    for index, argument in enumerate(arguments[:-1]):
        if argument == "-m":
            return arguments[index + 1]
    return ""


def _checkout_bootstrap() -> ModuleType | None:
    """league/bootstrap.py of the checkout this package sits in, or None outside a checkout (an installed kit)."""
    path = CHECKOUT / "league" / "bootstrap.py"
    if not (path.is_file() and (CHECKOUT / "pyproject.toml").is_file()):
        return None
    spec = importlib.util.spec_from_file_location("arena_bootstrap", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ensure(bootstrap: ModuleType, extras: str) -> Path:
    try:
        return bootstrap.ensure(extras)
    except (bootstrap.BootstrapError, OSError, bootstrap.subprocess.CalledProcessError) as error:
        _fail(f"cannot set up the project's environment: {error}")


def _fail(message: str) -> NoReturn:
    print(f"python -m {_running_module()}: {message}", file=sys.stderr)
    raise SystemExit(ENVIRONMENT_FAILED)
