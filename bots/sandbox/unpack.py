"""Unpack an uploaded bot (.py file, or .zip with bot.py at its root) into a private directory.

A zip is checked before anything is written: no absolute or escaping paths, no links or special files,
a bounded number of members and bounded sizes (checked against the bytes actually inflated, since a
zip's headers can lie).
"""

from __future__ import annotations

import hashlib
import posixpath
import shutil
import stat
import zipfile
from pathlib import Path

# The league's upload checks (league/settings.py) use the same defaults, so a bot it accepts also unpacks here.
MAX_BOT_BYTES = 50 * 1024 * 1024  # unpacked size of one bot
MAX_BOT_FILES = 200


class BotPackageError(ValueError):
    """An uploaded bot that cannot be used: wrong type, no bot.py, unsafe or oversized zip."""


def bot_version(source: Path) -> str:
    """A content hash naming this exact upload (logged as the bot's version)."""
    digest = hashlib.sha256()
    with open(source, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def unpack_bot(source: Path, destination: Path, max_bytes: int = MAX_BOT_BYTES, max_files: int = MAX_BOT_FILES) -> None:
    """Write the bot's files into the existing, empty directory `destination`."""
    source = Path(source)
    if not source.is_file():
        raise BotPackageError(f"bot file {source} does not exist or is not a file")
    if source.suffix == ".py":
        if source.stat().st_size > max_bytes:
            raise BotPackageError(f"bot file {source} is larger than {max_bytes} bytes")
        shutil.copyfile(source, destination / "bot.py")
    elif source.suffix == ".zip":
        _unpack_zip(source, destination, max_bytes, max_files)
    else:
        raise BotPackageError(f"a bot is a .py file or a .zip holding bot.py, not {source.name!r}")
    for path in [destination, *destination.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _unpack_zip(source: Path, destination: Path, max_bytes: int, max_files: int) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as error:
        raise BotPackageError(f"{source.name} is not a readable zip file: {error}") from None
    with archive:
        members = archive.infolist()
        if len(members) > max_files:
            raise BotPackageError(f"{source.name} holds {len(members)} entries, more than {max_files}")
        names = [_member_path(source.name, member) for member in members]
        if "bot.py" not in names:
            raise BotPackageError(f"{source.name} has no bot.py at its root")
        budget = max_bytes
        for member, name in zip(members, names, strict=True):
            target = destination.joinpath(*name.split("/"))
            if member.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(member) as reader, open(target, "xb") as writer:
                    while block := reader.read(1 << 16):
                        budget -= len(block)
                        if budget < 0:
                            raise BotPackageError(f"{source.name} unpacks to more than {max_bytes} bytes")
                        writer.write(block)
            except FileExistsError:
                raise BotPackageError(f"{source.name} holds {name} twice") from None
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError) as error:
                raise BotPackageError(f"{source.name}: cannot extract {name}: {error}") from None


def _member_path(archive_name: str, member: zipfile.ZipInfo) -> str:
    name = member.filename
    kind = stat.S_IFMT(member.external_attr >> 16)  # 0 when the archiver recorded no Unix file type
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise BotPackageError(f"{archive_name}: {name} is a link or special file; only plain files are allowed")
    if "\\" in name or "\0" in name:
        raise BotPackageError(f"{archive_name}: entry name {name!r} contains a backslash or NUL")
    clean = posixpath.normpath(name.rstrip("/"))
    if name.startswith("/") or clean == ".." or clean.startswith("../") or clean in ("", "."):
        raise BotPackageError(f"{archive_name}: entry {name!r} points outside the bot's directory")
    if any(part == ".." for part in name.split("/")):
        raise BotPackageError(f"{archive_name}: entry {name!r} contains '..'")
    return clean
