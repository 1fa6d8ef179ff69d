"""Unpack an uploaded bot (.py file, or .zip with bot.py at its root) into a private directory.

`check_archive` is the one set of rules for a bot's zip: the league's upload check and this unpacker both apply
it, with the same `UnpackLimits` (the league builds them from its settings and passes them down with each match),
so a bot the league accepts always unpacks on a worker. It refuses absolute or escaping paths, links and special
files, names given twice or as both a file and a folder, encrypted entries, too many entries, too many bytes and
zip-bomb ratios, folders nested too deep and names too long for a file system (or for a walk of the bot's
folder), all before anything is written; the unpacker then also counts the bytes actually inflated, since a
zip's headers can lie.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

BOMB_MIN_BYTES = 1024  # smaller members may compress as well as they like


NAME_MAX = 255  # bytes of one file name a Linux file system stores
# bytes of a path inside the bot's folder: PATH_MAX (4096, the whole path a system call takes) less room for the
# worker's own folder in front of it (bwrap.scratch_root, a sandbox's folder, "bot/")
PATH_BYTES_MAX = 3072


@dataclass(frozen=True)
class UnpackLimits:
    """How big an uploaded bot may be."""

    py_bytes: int = 1 << 20  # a .py upload
    zip_bytes: int = 10 << 20  # a .zip upload
    zip_entries: int = 200
    unpacked_bytes: int = 50 << 20  # everything a .zip holds, unpacked
    compression_ratio: int = 100  # unpacked to packed size of one member
    zip_depth: int = 16  # folders, one inside the other, on the way to a file
    name_bytes: int = NAME_MAX  # of one file or folder name, in UTF-8
    path_bytes: int = 1024  # of a whole path inside the bot's folder, in UTF-8

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"unpack limit {field.name} must be a positive integer, not {value!r}")
        # what the worker's file system can hold: a check that allowed more would accept uploads it cannot unpack
        for name, most in (("name_bytes", NAME_MAX), ("path_bytes", PATH_BYTES_MAX)):
            if getattr(self, name) > most:
                raise ValueError(f"unpack limit {name} must be at most {most}, not {getattr(self, name)}")


class BotPackageError(ValueError):
    """An uploaded bot that cannot be used: wrong type, no bot.py, unsafe or oversized zip.

    The message is written for the person who uploaded it."""


def bot_version(source: Path) -> str:
    """A content hash naming this exact upload (logged as the bot's version)."""
    digest = hashlib.sha256()
    with open(source, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


def check_archive(archive: zipfile.ZipFile, limits: UnpackLimits) -> list[tuple[zipfile.ZipInfo, str]]:
    """Every member with its normalised path, or BotPackageError naming the first rule the zip breaks."""
    members = archive.infolist()
    if len(members) > limits.zip_entries:
        raise BotPackageError(f"the zip holds {len(members)} entries; at most {limits.zip_entries} are allowed")
    checked = []
    seen: set[str] = set()
    unpacked = 0
    for member in members:
        path = _member_path(member)
        _check_path(member, path, limits)
        if path in seen:
            raise BotPackageError(f"the zip holds {member.filename} twice")
        seen.add(path)
        if member.flag_bits & 0x1:
            raise BotPackageError(f"the zip holds an encrypted entry: {member.filename}")
        unpacked += member.file_size
        if unpacked > limits.unpacked_bytes:
            raise BotPackageError(f"the zip unpacks to more than {mib(limits.unpacked_bytes)}")
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > BOMB_MIN_BYTES and ratio > limits.compression_ratio:
            raise BotPackageError(
                f"{member.filename} is compressed {ratio:.0f} to 1; more than "
                f"{limits.compression_ratio} to 1 looks like a zip bomb"
            )
        checked.append((member, path))
    files = {path for member, path in checked if not member.is_dir()}
    for path in sorted(seen):
        parent = posixpath.dirname(path)
        while parent:
            if parent in files:
                raise BotPackageError(f"the zip holds {parent} both as a file and as a folder")
            parent = posixpath.dirname(parent)
    if "bot.py" not in files:
        raise BotPackageError("the zip has no bot.py at its top level")
    return checked


def _member_path(member: zipfile.ZipInfo) -> str:
    name = member.filename
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise BotPackageError(f"the zip holds an absolute path: {name}")
    if "\\" in name:
        raise BotPackageError(f"the zip holds a path with a backslash: {name}")
    if "\0" in name:
        raise BotPackageError(f"the zip holds a name with a NUL character: {name!r}")
    if ".." in name.split("/"):
        raise BotPackageError(f"the zip holds a path that leaves the bot's folder: {name}")
    kind = stat.S_IFMT(member.external_attr >> 16)  # 0 when the archiver recorded no Unix file type
    if kind == stat.S_IFLNK:
        raise BotPackageError(f"the zip holds a link: {name}; links are not allowed")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise BotPackageError(f"the zip holds a special file: {name}; only files and folders are allowed")
    path = posixpath.normpath(name)
    if path == ".":
        raise BotPackageError(f"the zip holds an entry that names no file: {name!r}")
    return path


def _check_path(member: zipfile.ZipInfo, path: str, limits: UnpackLimits) -> None:
    """A path the worker's file system can hold, and its walks of the bot's folder can reach."""
    parts = path.split("/")
    folders = len(parts) if member.is_dir() else len(parts) - 1
    if folders > limits.zip_depth:
        raise BotPackageError(
            f"the zip holds {_shown(path)}, {folders} folders deep; at most {limits.zip_depth} are allowed"
        )
    for part in parts:
        if len(part.encode("utf-8", "surrogateescape")) > limits.name_bytes:
            raise BotPackageError(
                f"the zip holds a name of more than {limits.name_bytes} bytes: {_shown(part)}; please shorten it"
            )
    if len(path.encode("utf-8", "surrogateescape")) > limits.path_bytes:
        raise BotPackageError(f"the zip holds a path of more than {limits.path_bytes} bytes: {_shown(path)}")


def _shown(text: str, chars: int = 80) -> str:
    return text if len(text) <= chars else text[: chars - 3] + "..."


def unpack_bot(source: Path, destination: Path, limits: UnpackLimits | None = None) -> None:
    """Write the bot's files into the existing, empty directory `destination`."""
    limits = limits or UnpackLimits()
    source = Path(source)
    if not source.is_file():
        raise BotPackageError(f"bot file {source} does not exist or is not a file")
    size = source.stat().st_size
    if source.suffix not in (".py", ".zip"):
        raise BotPackageError(f"a bot is a .py file or a .zip holding bot.py, not {source.name!r}")
    limit = limits.py_bytes if source.suffix == ".py" else limits.zip_bytes
    if size > limit:
        raise BotPackageError(f"{source.name} is {mib(size)}; a {source.suffix} upload may be at most {mib(limit)}")
    if source.suffix == ".py":
        shutil.copyfile(source, destination / "bot.py")
    else:
        _unpack_zip(source, destination, limits)
    for path, mode in tree_modes(destination):
        os.chmod(path, mode)


def tree_modes(top: Path) -> Iterator[tuple[str, int]]:
    """`top` and everything below it (not below a link), each with its mode: 0o755 for a folder (or a link to one),
    0o644 for anything else."""
    yield str(top), 0o755
    for folder, folders, files in os.walk(top):
        for name in folders:
            yield os.path.join(folder, name), 0o755
        for name in files:
            yield os.path.join(folder, name), 0o644


def _unpack_zip(source: Path, destination: Path, limits: UnpackLimits) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError) as error:  # ValueError: e.g. a name flagged UTF-8 that is not
        raise BotPackageError(f"{source.name} is not a readable zip file: {error}") from None
    with archive:
        budget = limits.unpacked_bytes
        for member, path in check_archive(archive, limits):
            target = destination.joinpath(*path.split("/"))
            if member.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(member) as reader, open(target, "xb") as writer:
                    while block := reader.read(1 << 16):
                        budget -= len(block)
                        if budget < 0:
                            raise BotPackageError(f"the zip unpacks to more than {mib(limits.unpacked_bytes)}")
                        writer.write(block)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError) as error:
                raise BotPackageError(f"{source.name}: cannot extract {path}: {error}") from None
