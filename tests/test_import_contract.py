"""Dependencies point one way, league -> bots -> games, and inside league/arena from the top folders down:
checked over every import statement in the source.

Imports inside functions count as well: an import that only runs later is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "games": {"bots", "league", "django", "celery", "rest_framework"},
    "bots": {"league", "django", "celery", "rest_framework"},
}


def imported_packages(path: Path) -> set[str]:
    """The top-level package of every absolute import in the file (relative ones stay inside its package)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def violations(package: str) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in sorted(imported_packages(path) & FORBIDDEN[package])
    ]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_module_imports_upward(package: str) -> None:
    assert (ROOT / package / "__init__.py").is_file()
    assert violations(package) == []


def test_the_check_sees_imports_anywhere_in_a_file(tmp_path: Path) -> None:
    module = tmp_path / "sneaky.py"
    module.write_text("import os\n\ndef later():\n    from league.arena import models\n    import django.conf\n")
    assert imported_packages(module) == {"os", "league", "django"}


# --- Inside the league app: folders import downward only ---------------------------------------------------------

ARENA = ROOT / "league" / "arena"
# From the top down. A folder (or root module) may import from any layer below its own, never from its own layer's
# other members nor from above; docs/architecture.md says what each holds.
ARENA_LAYERS = [
    {"admin", "apps", "tasks", "management", "templatetags"},  # the app's wiring: registers and runs everything
    {"site", "ops"},  # the home and docs pages; the machinery page and the upkeep, which look at everything
    {"accounts", "profiles"},  # sign-up and passwords; a bot's and an owner's public pages
    {"scrims", "tournaments", "analysis", "versiontests"},  # analyses asked for, run, asked on a loss; version tests
    {"coop"},  # the co-op challenge ladders (rated through the ladder's fit)
    {"uploads", "ladder"},  # bots and versions from upload to the ladder; scheduling, refits, leaderboards
    {"play"},  # claiming, playing and storing a match, and telling whoever handles a stored one
    # Telling owners (notify); below every domain that has news for them, above the queue its e-mails go through.
    {"notifications"},
    {"web", "queue"},  # request plumbing; the one way to ask for background work
    {"models"},
    {"lib"},  # helpers that import no model
]
MAX_ROOT_MODULES = 8


def arena_unit(path: Path) -> str:
    """The folder (or root module) of league/arena that a file belongs to."""
    parts = path.relative_to(ARENA).parts
    return parts[0].removesuffix(".py")


def arena_imports(path: Path) -> set[str]:
    """The league/arena folders and root modules a file imports (`from league.arena import x` names x)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "league.arena":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("league.arena."):
            found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("league.arena."))
    return found


def arena_sources() -> list[Path]:
    return [path for path in sorted(ARENA.rglob("*.py")) if "migrations" not in path.parts]


def layer_of(unit: str) -> int:
    for depth, layer in enumerate(ARENA_LAYERS):
        if unit in layer:
            return depth
    raise AssertionError(f"league/arena/{unit} is in no layer of ARENA_LAYERS: place it there")


def arena_violations() -> list[str]:
    wrong = []
    for path in arena_sources():
        unit = arena_unit(path)
        for target in sorted(arena_imports(path) - {unit}):
            if layer_of(target) <= layer_of(unit):
                wrong.append(f"{path.relative_to(ROOT)} ({unit}) imports {target}, which is not below it")
    return wrong


def test_every_folder_of_the_league_app_has_a_layer():
    units = {arena_unit(path) for path in arena_sources()} - {"__init__"}
    assert units == set().union(*ARENA_LAYERS)


def test_league_arena_imports_only_downward():
    assert arena_violations() == []


def imported_modules(path: Path) -> set[str]:
    """The dotted name of every absolute import in the file (`from a.b import c` gives a.b and a.b.c)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_league_arena_never_imports_the_api():
    reaching = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in arena_sources()
        for name in sorted(imported_modules(path))
        if name == "league.api" or name.startswith("league.api.")
    ]
    assert reaching == []


def test_lib_imports_no_model():
    lib = [path for path in arena_sources() if arena_unit(path) == "lib"]
    assert [str(path.relative_to(ROOT)) for path in lib if arena_imports(path) - {"lib"}] == []


def test_a_handful_of_modules_at_the_app_root():
    root_modules = sorted(path.name for path in ARENA.glob("*.py"))
    assert len(root_modules) <= MAX_ROOT_MODULES, root_modules


def test_no_module_repeats_its_folder_in_its_name():
    repeated = [
        str(path.relative_to(ROOT))
        for path in arena_sources()
        if len(path.relative_to(ARENA).parts) > 1
        and path.stem.startswith((path.parent.name.rstrip("s") + "_", path.parent.name + "_"))
    ]
    assert repeated == []


def test_the_layer_check_sees_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = tmp_path / "league" / "arena"
    (app / "lib").mkdir(parents=True)
    (app / "lib" / "cache.py").write_text("from league.arena.models import Bot\n")
    (app / "models").mkdir()
    (app / "models" / "bots.py").write_text("from league.arena import lib\n")
    monkeypatch.setitem(globals(), "ARENA", app)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert arena_violations() == ["league/arena/lib/cache.py (lib) imports models, which is not below it"]
