"""The bench scripts run as `python -m bench.NAME` from the checkout root: none shadows a module, none edits sys.path.

The convention is written in bench/__init__.py; these tests keep every bench script, old and new, to it.
"""

from __future__ import annotations

import ast
import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
MODULES = sorted(path.stem for path in BENCH.glob("*.py") if path.stem != "__init__")
TOP_LEVEL = sorted(path.name for path in ROOT.iterdir() if (path / "__init__.py").exists())


def test_the_checkout_has_the_packages_this_test_guards():
    assert {"games", "bots", "league", "bench"} <= set(TOP_LEVEL)
    assert "tournament_throughput" in MODULES and "harness" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_no_bench_module_takes_the_name_of_another_module(name):
    assert name not in TOP_LEVEL, f"bench/{name}.py has the name of the project's package {name}"
    assert name not in sys.stdlib_module_names, f"bench/{name}.py has the name of the standard library's {name}"
    # where `python -m bench.NAME` looks: the checkout root and the installed packages (not pytest's test folders)
    path = [entry for entry in sys.path if not Path(entry or ".").resolve().is_relative_to(ROOT / "tests")]
    found = importlib.machinery.PathFinder.find_spec(name, path)
    assert found is None, f"bench/{name}.py has the name of the installed module {name} ({found.origin})"


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("name", MODULES)
def test_a_bench_module_edits_no_path_and_imports_benches_as_bench_modules(name):
    tree = ast.parse((BENCH / f"{name}.py").read_text())
    edits = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) == "sys"
    ]
    assert not edits, f"bench/{name}.py touches sys.path (line {edits[0]}): import as `from bench import ...`"
    bare = [module for module in _imports(tree) if module.split(".")[0] in MODULES]
    assert not bare, f"bench/{name}.py imports {bare[0]} by its bare name: write `from bench import {bare[0]}`"


RUN_ALL_HELP = """
import runpy, sys
failed = []
for name in sys.argv[1:]:
    sys.argv = [f"bench.{name}", "--help"]
    try:
        runpy.run_module(f"bench.{name}", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        if stop.code not in (0, None):
            failed.append(f"{name}: exit {stop.code}")
    except Exception as error:
        failed.append(f"{name}: {type(error).__name__}: {error}")
print("\\n".join(failed) or "all ran")
"""


@pytest.mark.slow
def test_every_bench_script_runs_as_a_module_from_the_checkout_root():
    """`--help` of each script (helpers only import), as `python -m bench.NAME` would, without PYTHONPATH."""
    scripts = [name for name in MODULES if "def main(" in (BENCH / f"{name}.py").read_text()]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", RUN_ALL_HELP, *MODULES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "all ran", done.stdout[-3000:]
    silent = [name for name in scripts if f"usage: {name}.py " not in done.stdout]
    assert not silent, f"no usage printed by {silent}"


WORKER_STARTS = ("start_worker(", "worker_command(")
PRODUCTION_SETTINGS = ("as_in_production(", "sandboxed_league(")


@pytest.mark.parametrize("name", MODULES)
def test_a_bench_that_starts_a_league_worker_runs_it_as_in_production(name):
    """A worker left with the league's development default (DEBUG on) wraps every query in Django's debug cursor:
    its figures would not be production's."""
    source = (BENCH / f"{name}.py").read_text()
    if name == "harness" or not any(start in source for start in WORKER_STARTS):
        return
    assert any(setting in source for setting in PRODUCTION_SETTINGS), (
        f"bench/{name}.py starts a league worker without production's settings (bench.harness.as_in_production)"
    )


def test_production_settings_turn_debug_off(monkeypatch):
    from bench.harness import as_in_production
    from league.env import env_bool

    settings = as_in_production()
    for key, value in settings.items():
        monkeypatch.setenv(key, value)
    assert env_bool("DEBUG", True) is False
    assert len(settings["SECRET_KEY"]) >= 32
    assert as_in_production() == settings  # one key for every process and run of a bench: it seeds the matches
