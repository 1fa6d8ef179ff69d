"""Dependencies point one way, league -> bots -> games: checked over every import statement in the source.

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
