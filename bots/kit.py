"""The author's kit: `games` and `bots` (no Django, no database) as a wheel of their own, with the starter bots.

    python -m bots.kit [--out DIR]    # writes DIR/thegame_arena_kit-VERSION-py3-none-any.whl, prints its path

Built from the checkout's own sources, so the kit's runner is the server's runner (the same sandbox, time rules
and logs), and versioned with the server (pyproject.toml's version). Its dependencies are the server's own pins
of the few libraries games/ and bots/ import. The starters (docs/starters/) travel as `bots/starters/`, where
`python -m bots new` finds them.

The wheel is written here rather than by a build backend: setuptools packages a project's own directories, and
the kit is a subset of the server's project. A pure-Python wheel is a zip with three metadata files (PEP 427);
writing it takes milliseconds, needs no network and gives the same bytes for the same sources (fixed dates and
order), so the site can build it on demand and publish a stable checksum. This module is not in the kit.
"""

from __future__ import annotations

import argparse
import base64
import fnmatch
import hashlib
import io
import re
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "thegame-arena-kit"
PACKAGES = ("games", "bots")
REQUIREMENTS = ("orjson", "pyseccomp")  # what games/ and bots/ import beyond the standard library
# the builder needs a checkout, the kit has none; the leaf models' fitting needs numpy (the analysis itself does not)
LEFT_OUT = ("bots/kit.py", "bots/analysis/training.py")
STARTERS = ("docs/starters", "bots/starters")  # (in the checkout, in the wheel)
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # zip's earliest date: the same sources give the same bytes
SUMMARY = "Play, test and replay bots for The Game Arena locally: the league's own engine, sandbox and runner"
DESCRIPTION = """\
The engine and the match runner of The Game Arena, for bot authors: the same rules, sandbox, time rules and game
logs as the league server.

    python -m bots new my_bot.py --game face-to-face      # a starter bot to edit
    python -m bots play my_bot.py house:greedy --game face-to-face --games 20
    python -m games replay game-123.json                  # check a log downloaded from the site

File bots run in the bubblewrap sandbox where `bwrap` is installed (Linux), as on the server.
"""


@dataclass(frozen=True)
class Kit:
    version: str
    requirements: tuple[str, ...]  # e.g. "orjson>=3.9", as pyproject.toml pins them
    requires_python: str

    @property
    def wheel_name(self) -> str:
        return f"{_normalized(DISTRIBUTION)}-{self.version}-py3-none-any.whl"

    @property
    def dist_info(self) -> str:
        return f"{_normalized(DISTRIBUTION)}-{self.version}.dist-info"


def read_kit(root: Path = CHECKOUT) -> Kit:
    """The kit's version and requirements, taken from the server's pyproject.toml."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {_requirement_name(line): line for line in project["dependencies"]}
    missing = [name for name in REQUIREMENTS if name not in pins]
    if missing:
        raise ValueError(f"pyproject.toml does not list {', '.join(missing)}, which the kit needs")
    return Kit(project["version"], tuple(pins[name] for name in REQUIREMENTS), project["requires-python"])


def kit_files(root: Path = CHECKOUT) -> Iterator[tuple[str, Path]]:
    """(path in the wheel, source) for every file of the kit, in a fixed order."""
    patterns = _package_data(root)
    for package in PACKAGES:
        for source in sorted((root / package).rglob("*")):
            name = source.relative_to(root).as_posix()
            if not source.is_file() or "__pycache__" in source.parts or name in LEFT_OUT:
                continue
            inside = source.relative_to(root / package).as_posix()
            if source.suffix == ".py" or any(fnmatch.fnmatch(inside, pattern) for pattern in patterns.get(package, ())):
                yield name, source
    checkout_dir, wheel_dir = STARTERS
    for source in sorted((root / checkout_dir).glob("*.py")):
        yield f"{wheel_dir}/{source.name}", source


def build(out_dir: Path, root: Path = CHECKOUT) -> Path:
    """Write the kit's wheel into `out_dir` (made if missing) and return its path."""
    kit = read_kit(root)
    entries = [(name, source.read_bytes()) for name, source in kit_files(root)]
    entries += [
        (f"{kit.dist_info}/METADATA", _metadata(kit).encode()),
        (f"{kit.dist_info}/WHEEL", _wheel_info().encode()),
        (f"{kit.dist_info}/top_level.txt", "".join(f"{package}\n" for package in PACKAGES).encode()),
    ]
    record = "".join(f"{name},sha256={_digest(data)},{len(data)}\n" for name, data in entries)
    entries.append((f"{kit.dist_info}/RECORD", (record + f"{kit.dist_info}/RECORD,,\n").encode()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as wheel:
        for name, data in entries:
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / kit.wheel_name
    partial = path.with_name(path.name + ".partial")  # a reader never sees half a wheel
    partial.write_bytes(buffer.getvalue())
    partial.replace(path)
    return path


def _metadata(kit: Kit) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {DISTRIBUTION}",
        f"Version: {kit.version}",
        f"Summary: {SUMMARY}",
        "License: MIT",
        f"Requires-Python: {kit.requires_python}",
        *(f"Requires-Dist: {requirement}" for requirement in kit.requirements),
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + DESCRIPTION


def _wheel_info() -> str:
    return "Wheel-Version: 1.0\nGenerator: bots.kit\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_data(root: Path) -> dict[str, list[str]]:
    tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("tool", {})
    return tool.get("setuptools", {}).get("package-data", {})


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _requirement_name(requirement: str) -> str:
    return _normalized(re.match(r"[A-Za-z0-9._-]+", requirement).group(0))


def _normalized(name: str) -> str:
    """PEP 503's name, with underscores: how wheel file names spell a distribution."""
    return re.sub(r"[-_.]+", "_", name).lower()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.kit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("dist"), help="directory for the wheel (default dist/)")
    args = parser.parse_args(argv)
    try:
        print(build(args.out))
    except (OSError, ValueError, KeyError) as error:
        print(f"python -m bots.kit: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
