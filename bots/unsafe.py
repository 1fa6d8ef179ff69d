"""Loading an author's own bot into this process, for `--unsafe-no-sandbox` only.

Nothing here isolates the bot: it runs with the caller's rights. The CLI prints a warning.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import zipfile
from itertools import count
from pathlib import Path
from types import ModuleType

from bots.players import load_module_from_file

_loaded = count()


def load_unsandboxed(path: Path) -> ModuleType:
    """Import a .py bot, or a .zip bot's bot.py (extracted to a temporary directory), as a new module."""
    path = Path(path)
    module_name = f"_arena_bot_{next(_loaded)}"
    if path.suffix == ".zip":
        directory = Path(tempfile.mkdtemp(prefix="arena-bot-"))
        atexit.register(shutil.rmtree, directory, True)
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                target = (directory / member.filename).resolve()
                if not target.is_relative_to(directory.resolve()):
                    raise ValueError(f"{path}: unsafe path {member.filename!r} in the zip")
            archive.extractall(directory)
        if not (directory / "bot.py").is_file():
            raise ValueError(f"{path}: the zip has no bot.py at its root")
        return load_module_from_file(directory / "bot.py", module_name)
    return load_module_from_file(path, module_name)
