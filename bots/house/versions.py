"""A house bot's version: a content hash over every module file that loading and running it executes.

The closure is found by reading the source, not by running it: from the bot's module, every `import` and
`from ... import` of this project's packages is followed (with the parent packages an import executes), and so is
every string constant that names a project module, which is how the expert loads its specialists
(`fresh_module("bots.house.expert_coop")`). Imports of the standard library and of other distributions are not
followed: they are the environment, not the bot.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import re
from pathlib import Path

from bots.house import house_module

PROJECT_PACKAGES = ("bots", "games")
_MODULE_NAME = re.compile(r"(?:bots|games)(?:\.\w+)+")  # a dotted name in one of PROJECT_PACKAGES


@functools.cache  # the code a process runs does not change under it; parsing the closure takes ~30 ms
def house_version(name: str) -> str:
    """ "sha256:..." naming the exact code of the house bot `name` (e.g. "expert").

    A bot made of one file gets that file's sha256, the same version an upload of the file gets; a bot spread over
    several modules gets the sha256 of each module's name, size and bytes in module-name order.
    """
    files = sorted(module_closure(house_module(name)).items())
    if len(files) == 1:
        return "sha256:" + hashlib.sha256(files[0][1].read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for module, path in files:
        source = path.read_bytes()
        digest.update(f"{module} {len(source)}\n".encode())
        digest.update(source)
    return "sha256:" + digest.hexdigest()


def module_closure(module_name: str) -> dict[str, Path]:
    """{module name: source file} for `module_name` and every project module it loads, directly or not."""
    found: dict[str, Path] = {}
    pending = [module_name]
    while pending:
        name = pending.pop()
        if name in found:
            continue
        spec = _find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            raise LookupError(f"module {name} has no Python source file")
        path = Path(spec.origin)
        found[name] = path
        tree = ast.parse(path.read_bytes(), filename=str(path))
        package = name if spec.submodule_search_locations is not None else name.rpartition(".")[0]
        for imported in _imported_names(tree, package):
            pending.extend(module for module in _with_parents(imported) if module not in found)
    return found


def _imported_names(tree: ast.Module, package: str) -> set[str]:
    """The project modules the source names: imports (resolved against `package`) and module-name strings."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, package)
            names.add(base)
            # `from package import module` loads the submodule; `from module import name` does not.
            names.update(f"{base}.{alias.name}" for alias in node.names if _find_spec(f"{base}.{alias.name}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_NAME.fullmatch(node.value):
            if _find_spec(node.value):
                names.add(node.value)
    return {name for name in names if name.split(".")[0] in PROJECT_PACKAGES}


def _resolve(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def _with_parents(module: str) -> list[str]:
    """ "a.b.c" -> ["a", "a.b", "a.b.c"]: importing a module executes its parent packages first."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts) + 1)]


def _find_spec(name: str) -> importlib.machinery.ModuleSpec | None:
    if name.split(".")[0] not in PROJECT_PACKAGES:
        return None
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):  # a dotted name whose parent is a module, not a package
        return None
