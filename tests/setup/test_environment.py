"""`python3 -m games|bots|bench.NAME` without the dependencies: run again in the checkout's .venv, or exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from games import environment

ROOT = Path(__file__).resolve().parents[2]


class Execed(Exception):
    """os.execv was called: the command line it would have run."""


@pytest.fixture
def run(monkeypatch):
    """run(missing, bootstrap, command): ensure_dependencies() in `python3 -X utf8 COMMAND` lacking `missing`."""

    def execv(path, argv):
        raise Execed(argv)

    monkeypatch.setattr(environment.os, "execv", execv)

    def call(missing: set[str], bootstrap, command: str = "-m bots play x.py"):
        monkeypatch.setattr(sys, "orig_argv", ["/usr/bin/python3", "-X", "utf8", *command.split()])
        real = environment.importlib.util.find_spec
        monkeypatch.setattr(
            environment.importlib.util, "find_spec", lambda name: None if name in missing else real(name)
        )
        monkeypatch.setattr(environment, "_checkout_bootstrap", lambda: bootstrap)
        environment.ensure_dependencies()

    return call


def fake_bootstrap(in_venv: bool = False, current: bool = True, error: Exception | None = None):
    calls = []

    class BootstrapError(RuntimeError):
        pass

    def ensure(extras=""):
        calls.append(f"ensure {extras}".strip())
        if error is not None:
            raise error
        return Path("/checkout/.venv/bin/python")

    module = SimpleNamespace(
        in_venv=lambda: in_venv,
        is_current=lambda extras="": current,
        ensure=ensure,
        BootstrapError=BootstrapError,
        subprocess=subprocess,
        VENV=Path("/checkout/.venv"),
        calls=calls,
    )
    return module


def test_a_checkout_without_the_dependencies_runs_the_same_command_line_in_its_venv(run):
    bootstrap = fake_bootstrap()
    with pytest.raises(Execed) as execed:
        run({"orjson"}, bootstrap)
    assert execed.value.args[0] == ["/checkout/.venv/bin/python", "-X", "utf8", "-m", "bots", "play", "x.py"]
    assert bootstrap.calls == ["ensure"]


def test_the_benches_get_the_test_tools_with_the_environment(run):
    bootstrap = fake_bootstrap()
    with pytest.raises(Execed):
        run({"playwright"}, bootstrap, "-m bench.pages")
    assert bootstrap.calls == ["ensure test"]


def test_a_python_with_the_dependencies_keeps_running(run):
    bootstrap = fake_bootstrap()
    run(set(), bootstrap)
    assert bootstrap.calls == []


@pytest.mark.parametrize("command", ["/usr/bin/pytest tests", "-m pytest", "-c import games", "-m celery worker"])
def test_only_a_command_of_the_project_is_redirected_not_a_program_that_imports_it(run, command):
    bootstrap = fake_bootstrap()
    run({"orjson"}, bootstrap, command)
    assert bootstrap.calls == []


@pytest.mark.parametrize("command", ["-m games replay x.json", "-m bots.selfcheck", "-m bench.kit --rounds 1"])
def test_every_command_package_is_redirected(run, command):
    with pytest.raises(Execed) as execed:
        run({"orjson"}, fake_bootstrap(), command)
    assert execed.value.args[0][3:] == command.split()


def test_the_checkout_venv_is_refreshed_when_pyproject_changed_as_manage_py_does(run):
    bootstrap = fake_bootstrap(in_venv=True, current=False)
    run(set(), bootstrap)
    assert bootstrap.calls == ["ensure"]


def test_an_environment_that_cannot_be_made_exits_2_not_1_with_the_reason(run, capsys):
    bootstrap = fake_bootstrap(error=subprocess.CalledProcessError(1, ["pip", "install"]))
    with pytest.raises(SystemExit) as exited:
        run({"orjson"}, bootstrap)
    assert exited.value.code == 2
    assert "python -m bots: cannot set up the project's environment" in capsys.readouterr().err


def test_a_venv_still_lacking_a_module_exits_2_naming_it(run, capsys):
    with pytest.raises(SystemExit) as exited:
        run({"orjson"}, fake_bootstrap(in_venv=True))
    assert exited.value.code == 2
    assert "lacks orjson" in capsys.readouterr().err


def test_outside_a_checkout_a_missing_module_exits_2_saying_how_to_install(run, capsys):
    with pytest.raises(SystemExit) as exited:
        run({"orjson"}, None)
    assert exited.value.code == 2
    assert "missing orjson: install the kit with pip" in capsys.readouterr().err


def test_the_checkout_is_found_by_its_pyproject_and_bootstrap():
    bootstrap = environment._checkout_bootstrap()
    assert bootstrap is not None and bootstrap.ROOT == ROOT
