"""The README's `python3 -m ...` commands, run as written with Debian's python3 first on PATH, in a fresh clone.

Debian's python3 has none of the project's dependencies, and a clone has no `.venv/`: the first command makes it
(the slow part, so one clone serves the module) and every command runs there. The README's game counts are cut
to a few games (`--games 4`); everything else on each line is the README's. The benchmarks start with `--help`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = Path("/usr/bin/python3")
FEW_GAMES = "--games 4"


def readme_commands(section: str) -> list[str]:
    """The command lines of the first `sh` block under the README heading `section`, without their comments."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(rf"## {re.escape(section)}\n.*?```sh\n(.*?)```", readme, re.S)
    assert block, f"README.md has no sh block under '## {section}'"
    lines = [line.split("  #")[0].strip() for line in block[1].splitlines()]
    return [line for line in lines if line]


def shell(checkout: Path, command: str, **extra_env: str) -> subprocess.CompletedProcess:
    """`command` in bash at the top of `checkout`, with /usr/bin first on PATH and nothing of this test run's venv."""
    keep = ("HOME", "LANG", "TMPDIR", "PIP_CERT", "PIP_DEFAULT_TIMEOUT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(PATH="/usr/bin:/bin:/usr/sbin:/sbin", ARENA_DATA_DIR=str(checkout / "var"), **extra_env)
    return subprocess.run(["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True, timeout=900)


def fresh_clone(destination: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(destination)], check=True)
    return destination


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    if not DEBIAN_PYTHON.exists():
        pytest.skip("no /usr/bin/python3 on this machine")
    if subprocess.run([DEBIAN_PYTHON, "-c", "import orjson"], capture_output=True).returncode == 0:
        pytest.skip("/usr/bin/python3 has the dependencies: nothing to bootstrap")
    return fresh_clone(tmp_path_factory.mktemp("clone") / "arena")


@pytest.fixture(scope="module")
def first_run(clone) -> subprocess.CompletedProcess:
    """The README's first local command (a starter bot), which finds no .venv and makes it."""
    return shell(clone, readme_commands("Playing bots locally")[0])


def test_the_first_command_makes_the_environment_and_says_so(clone, first_run):
    assert first_run.returncode == 0, first_run.stderr[-3000:]
    assert f"making a virtual environment in {clone / '.venv'}" in first_run.stderr
    assert "installing the project into" in first_run.stderr
    assert (clone / "my_bot.py").is_file()


def test_every_local_command_of_the_readme_runs_as_written(clone, first_run):
    for command in readme_commands("Playing bots locally")[1:]:
        done = shell(clone, re.sub(r"--games \d+", FEW_GAMES, command))
        assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
        assert "installing" not in done.stderr, command  # made once, then reused
    assert len(list((clone / "logs").glob("game-*.json"))) == 4


def test_every_benchmark_of_the_readme_starts_as_written(clone, first_run):
    """Each bench line's module with --help: the benches themselves take minutes (bench/ has their figures)."""
    for command in readme_commands("Benchmarks"):
        module = re.match(r"python3 -m (bench\.\w+)", command)
        assert module, command
        done = shell(clone, f"python3 -m {module[1]} --help")
        assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
        assert done.stdout.startswith("usage: "), command


def command_modules() -> list[str]:
    """Every module of games/, bots/ and bench/ that runs as `python -m` (the sandbox's own insides aside)."""
    found = []
    for package in ("games", "bots", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "sandbox" not in path.parts and '__name__ == "__main__"' in path.read_text(encoding="utf-8"):
                found.append(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__main__"))
    return found


def test_every_command_module_starts_with_debian_python(clone, first_run):
    """Not only the README's: `python3 -m bots.selfcheck`, `python3 -m bench.scale`, ... (a new one too)."""
    modules = command_modules()
    assert {"games", "bots", "bots.selfcheck", "bots.kit", "bench.kit"} <= set(modules)
    for module in modules:
        done = shell(clone, f"python3 -m {module} --help")
        assert done.returncode == 0 and done.stdout.startswith("usage: "), f"{module}\n{done.stderr[-3000:]}"


def test_the_documented_exit_codes_hold(clone, first_run):
    assert shell(clone, "python3 -m games replay missing.json").returncode == 2  # unreadable
    log = next((clone / "logs").glob("game-*.json"))
    tampered = json.loads(log.read_text())
    tampered["result"]["winner"] = 1 - tampered["result"]["winner"]  # Face to Face: seat 0 or 1
    (clone / "tampered.json").write_text(json.dumps(tampered))
    assert shell(clone, "python3 -m games replay tampered.json").returncode == 1  # a mismatch
    assert shell(clone, "python3 -m bots play house:nobody house:greedy --game face-to-face").returncode == 2


def test_without_a_way_to_install_the_commands_exit_2_with_the_reason(tmp_path):
    if not DEBIAN_PYTHON.exists():
        pytest.skip("no /usr/bin/python3 on this machine")
    checkout = fresh_clone(tmp_path / "arena")
    offline = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path)}
    for command, program in (("python3 -m games replay x.json", "games"), ("python3 -m bots --version", "bots")):
        done = shell(checkout, command, **offline)
        assert done.returncode == 2, done.stderr[-3000:]
        assert f"python -m {program}: cannot set up the project's environment" in done.stderr
