"""Readers for the deployment files (docker/), so the tests can check them against the code they run."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "compose.yaml"
DOCKERFILE = DOCKER / "Dockerfile"
ENTRYPOINT = DOCKER / "entrypoint.sh"
HEALTHCHECK = DOCKER / "healthcheck.py"
ENV_EXAMPLE = DOCKER / ".env.example"
SECCOMP_PROFILE = DOCKER / "seccomp-worker.json"
SETTINGS = ROOT / "league" / "settings.py"

NAME = r"[A-Za-z_][A-Za-z0-9_]*"


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def compose_variables() -> set[str]:
    """The variables compose.yaml interpolates (${NAME...}; $$ is a literal dollar for the container)."""
    return set(re.findall(rf"(?<!\$)\$\{{({NAME})", COMPOSE.read_text()))


def arena_services() -> dict[str, dict[str, Any]]:
    """The services that run this project's image (the others are PostgreSQL and Redis)."""
    return {name: service for name, service in compose()["services"].items() if _runs_arena_image(service)}


def _runs_arena_image(service: dict[str, Any]) -> bool:
    return "build" in service or str(service.get("image", "")).startswith("thegame-arena-")


def env_readers() -> set[str]:
    """The readers league/env.py offers: its public functions that take the variable's name first."""
    import league.env

    return {
        name
        for name, function in inspect.getmembers(league.env, inspect.isfunction)
        if function.__module__ == "league.env" and list(inspect.signature(function).parameters)[:1] == ["name"]
    }


def settings_variables() -> set[str]:
    """Every environment variable league/settings.py reads, found in its source."""
    names = set()
    readers = env_readers()
    for node in ast.walk(ast.parse(SETTINGS.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in readers:
            names.add(_string(node.args[0]))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv"):
            names.add(_string(node.args[0]))
        elif isinstance(node, ast.Compare) and any(ast.unparse(c) == "os.environ" for c in node.comparators):
            names.add(_string(node.left))
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            names.add(_string(node.slice))
    return names


def _string(node: ast.expr) -> str:
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise AssertionError(
            f"league/settings.py reads an environment variable by a computed name: {ast.unparse(node)}"
        )
    return node.value


def entrypoint_variables() -> set[str]:
    """The variables docker/entrypoint.sh and docker/healthcheck.py read themselves."""
    names = set(re.findall(rf"\$\{{({NAME})", ENTRYPOINT.read_text()))
    names |= set(re.findall(rf"os\.environ\.get\(['\"]({NAME})['\"]", HEALTHCHECK.read_text()))
    return names


def healthcheck_module() -> Any:
    """docker/healthcheck.py as a module (it is a script, not a package member)."""
    spec = importlib.util.spec_from_file_location("docker_healthcheck", HEALTHCHECK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entrypoint_subcommands() -> set[str]:
    """The case labels of entrypoint.sh's subcommand switch."""
    return set(re.findall(r"^([a-z][a-z-]*)\)$", ENTRYPOINT.read_text(), flags=re.MULTILINE))


def env_example() -> dict[str, tuple[str, bool]]:
    """NAME -> (value, active) for each NAME=value line of .env.example; commented examples are inactive."""
    entries = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        match = re.fullmatch(rf"(#\s*)?({NAME})=(.*)", line.strip())
        if match:
            entries[match.group(2)] = (match.group(3), match.group(1) is None)
    return entries


def seccomp_profile() -> dict[str, Any]:
    return json.loads(SECCOMP_PROFILE.read_text())


@dataclass(frozen=True)
class Instruction:
    stage: str  # the name of the build stage it belongs to
    keyword: str  # upper case: FROM, RUN, COPY, ...
    arguments: str  # the rest, continuation lines joined

    def words(self) -> list[str]:
        return shlex.split(self.arguments)

    def json_form(self) -> list[str] | None:
        """The arguments of the exec (JSON array) form, or None for the shell form."""
        try:
            value = json.loads(self.arguments)
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, list) else None


def dockerfile() -> list[Instruction]:
    """The Dockerfile's instructions in order, each tagged with its stage (FROM ... AS NAME)."""
    instructions: list[Instruction] = []
    stage = ""
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.lstrip().startswith("#"):  # a comment inside a continued instruction
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).strip().partition(" ")
        pending = ""
        keyword = keyword.upper()
        if keyword == "FROM":
            words = arguments.split()
            stage = words[2] if len(words) >= 3 and words[1].upper() == "AS" else words[0]
        instructions.append(Instruction(stage, keyword, " ".join(arguments.split())))
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def stage_chain(instructions: list[Instruction], stage: str) -> list[str]:
    """`stage` and the stages it is built FROM, nearest first."""
    froms = {i.stage: i.words()[0] for i in instructions if i.keyword == "FROM"}
    chain = [stage]
    while froms.get(chain[-1]) in froms:
        chain.append(froms[chain[-1]])
    return chain


def build_args(instructions: list[Instruction]) -> dict[str, str]:
    """Global ARG defaults (before the first FROM)."""
    args = {}
    for instruction in instructions:
        if instruction.keyword == "FROM":
            break
        if instruction.keyword == "ARG":
            name, _, default = instruction.arguments.partition("=")
            args[name] = default
    return args


def env_instructions(instructions: list[Instruction], stages: list[str]) -> dict[str, str]:
    """The ENV values a stage's containers start with (its own and its parents')."""
    values: dict[str, str] = {}
    for instruction in instructions:
        if instruction.keyword == "ENV" and instruction.stage in stages:
            for word in instruction.words():
                name, _, value = word.partition("=")
                values[name] = value
    return values
