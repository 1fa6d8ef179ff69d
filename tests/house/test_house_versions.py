"""A house bot's version covers every module it loads, so changing any of them makes a new version."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bots.house import HOUSE_BOTS, UnknownHouseBot, house_module, parse_ref
from bots.house.versions import house_version, module_closure

ROOT = Path(__file__).resolve().parents[2]


def test_a_one_file_bot_has_the_version_an_upload_of_that_file_gets():
    source = (ROOT / "bots" / "house" / "random_bot.py").read_bytes()
    assert house_version("random") == "sha256:" + hashlib.sha256(source).hexdigest()
    assert set(module_closure(house_module("random"))) == {"bots.house.random_bot"}


def test_the_expert_closure_holds_its_specialists_and_what_it_imports():
    closure = module_closure(house_module("expert"))
    assert set(closure) == {
        "bots",
        "bots.house",
        "bots.house.expert",
        "bots.house.expert_face_to_face",
        "bots.house.expert_coop",
    }
    assert all(path.is_file() and path.suffix == ".py" for path in closure.values())


def test_imports_of_the_engine_are_followed_with_their_packages(tmp_path):
    package = copy_project(tmp_path)
    (package / "bots" / "house" / "greedy.py").write_text("from games import Turn\nfrom ..house import random_bot\n")
    modules = json.loads(run_in_copy(tmp_path, "print(json.dumps(sorted(module_closure('bots.house.greedy'))))"))
    assert {"bots.house.greedy", "bots.house.random_bot", "games", "games.moves", "games.factory"} <= set(modules)


def copy_project(tmp_path: Path) -> Path:
    for package in ("bots", "games"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def run_in_copy(tmp_path: Path, code: str) -> str:
    """Run `code` with the copy of the packages in `tmp_path` first on the path (fresh interpreter, no caches)."""
    prelude = "import json\nfrom bots.house.versions import house_version, module_closure\n"
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n{prelude}{code}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    return result.stdout.strip()


def versions_in_copy(tmp_path: Path) -> dict[str, str]:
    code = f"print(json.dumps({{name: house_version(name) for name in {sorted(HOUSE_BOTS)!r}}}))"
    return json.loads(run_in_copy(tmp_path, code))


def test_changing_any_module_a_bot_loads_changes_its_version_and_no_other_module_does(tmp_path):
    copy_project(tmp_path)
    before = versions_in_copy(tmp_path)
    assert before == {name: house_version(name) for name in HOUSE_BOTS}  # the copy is the same code
    closures = {name: set(module_closure(house_module(name))) for name in HOUSE_BOTS}
    for module in sorted(set().union(*closures.values())):
        path = tmp_path.joinpath(*module.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        original = path.read_bytes()
        path.write_bytes(original + b"\n# changed\n")
        try:
            after = versions_in_copy(tmp_path)
        finally:
            path.write_bytes(original)
        changed = {name for name in HOUSE_BOTS if after[name] != before[name]}
        assert changed == {name for name, closure in closures.items() if module in closure}, module


def test_house_references_are_parsed_in_one_place():
    assert parse_ref("house:greedy") == "greedy"
    with pytest.raises(UnknownHouseBot, match="'genius'"):
        parse_ref("house:genius")
    with pytest.raises(UnknownHouseBot, match="not a house bot reference"):
        parse_ref("greedy.py")
    with pytest.raises(UnknownHouseBot):
        house_version("genius")
