"""The author's kit's wheel: games/ and bots/ with the starters, small, versioned with the server, installable."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from bots import kit
from tests.test_import_contract import imported_packages

ROOT = Path(__file__).resolve().parents[2]
WHEEL_LIMIT = 1_000_000  # issue 26: the kit's wheel <= 1 MB
# Beyond the standard library: the kit's requirements, Debian's binding that seccomp.py prefers, the harness's names
# for its own modules inside the sandbox.
ALLOWED_IMPORTS = {"games", "bots", "orjson", "pyseccomp", "seccomp", "_arena_protocol", "_arena_harness"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return kit.build(tmp_path_factory.mktemp("kit"))


def names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_is_small_and_named_with_the_servers_version(wheel):
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert wheel.name == f"thegame_arena_kit-{version}-py3-none-any.whl"
    assert wheel.stat().st_size <= WHEEL_LIMIT


def test_it_holds_every_module_of_games_and_bots_but_no_server(wheel):
    tracked = subprocess.run(
        ["git", "ls-files", "games", "bots"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    expected = {name for name in tracked if name.endswith(".py") or name.endswith(".json")} - set(kit.LEFT_OUT)
    inside = names(wheel)
    assert expected <= inside, sorted(expected - inside)
    assert not any(name.startswith(("league/", "tests/", "bench/")) for name in inside)
    assert "games/schemas/game-log.schema.json" in inside
    assert "bots/analysis/leaf_models.json" in inside  # `python -m bots analyse` works from the kit


def test_the_starters_travel_as_they_are_in_the_docs(wheel):
    with zipfile.ZipFile(wheel) as archive:
        for source in sorted((ROOT / "docs" / "starters").glob("*.py")):
            assert archive.read(f"bots/starters/{source.name}") == source.read_bytes()


def test_its_requirements_are_the_servers_own_pins(wheel):
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"{kit.read_kit().dist_info}/METADATA").decode()
    required = sorted(line.removeprefix("Requires-Dist: ") for line in metadata.splitlines() if "Requires-Dist" in line)
    assert required == sorted(pin for pin in pins if pin.startswith(("orjson", "pyseccomp")))
    assert "Requires-Python: >=3.11" in metadata and "Name: thegame-arena-kit" in metadata


def test_every_file_matches_its_record(wheel):
    with zipfile.ZipFile(wheel) as archive:
        record_name = next(name for name in archive.namelist() if name.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(archive.read(record_name).decode())))
        assert {row[0] for row in rows} == set(archive.namelist())
        for name, digest, size in rows:
            if name == record_name:
                assert digest == size == ""
                continue
            data = archive.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert (digest, int(size)) == (f"sha256={expected}", len(data)), name


def test_the_same_sources_give_the_same_bytes(wheel, tmp_path):
    assert kit.build(tmp_path).read_bytes() == wheel.read_bytes()


def test_the_kit_imports_nothing_beyond_the_standard_library_and_its_requirements(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)
    for module in sorted(tmp_path.rglob("*.py")):
        outside = imported_packages(module) - set(sys.stdlib_module_names) - ALLOWED_IMPORTS
        assert not outside, f"{module.relative_to(tmp_path)} imports {outside}"


def test_the_command_writes_the_wheel_and_prints_its_path(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bots.kit", "--out", str(tmp_path / "dist")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_file() and done.stdout.strip().endswith("-py3-none-any.whl")


def test_a_pyproject_without_a_requirement_is_refused_by_name(tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [pin for pin in project["dependencies"] if not pin.startswith("orjson")]
    lines = ["[project]", 'version = "1.0"', 'requires-python = ">=3.11"', f"dependencies = {pins!r}"]
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="does not list orjson"):
        kit.read_kit(tmp_path)
