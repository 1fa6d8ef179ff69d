"""Every limit of an uploaded bot at its edge: exactly at the limit the zip (or .py) is accepted and unpacks, one past
it the shared check refuses it with a message naming the limit, before anything is written."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from bots.sandbox import BotPackageError, unpack_bot
from bots.sandbox.unpack import UnpackLimits, check_archive

BOT = b"def play(observation):\n    return []\n"


def make_zip(path: Path, entries: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def unpacks(archive: Path, limits: UnpackLimits, tmp_path: Path) -> list[str]:
    """What unpack_bot writes (relative paths of the files), after check_archive accepted the zip."""
    with zipfile.ZipFile(archive) as opened:
        check_archive(opened, limits)
    out = tmp_path / f"out-{archive.stem}"
    out.mkdir()
    unpack_bot(archive, out, limits)
    return sorted(path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_file())


def refused(archive: Path, limits: UnpackLimits, tmp_path: Path, words: str) -> None:
    with zipfile.ZipFile(archive) as opened, pytest.raises(BotPackageError, match=words):
        check_archive(opened, limits)
    out = tmp_path / f"refused-{archive.stem}"
    out.mkdir()
    with pytest.raises(BotPackageError, match=words):
        unpack_bot(archive, out, limits)
    assert list(out.iterdir()) == []  # refused before anything was written


def test_entries(tmp_path):
    limits = UnpackLimits(zip_entries=4)
    at = make_zip(tmp_path / "at.zip", {"bot.py": BOT, **{f"m{i}.py": b"" for i in range(3)}})
    assert len(unpacks(at, limits, tmp_path)) == 4
    past = make_zip(tmp_path / "past.zip", {"bot.py": BOT, **{f"m{i}.py": b"" for i in range(4)}})
    refused(past, limits, tmp_path, "the zip holds 5 entries; at most 4 are allowed")


def test_unpacked_bytes(tmp_path):
    limits = UnpackLimits(unpacked_bytes=4096)
    at = make_zip(tmp_path / "at.zip", {"bot.py": BOT, "data.bin": b"x" * (4096 - len(BOT))})
    assert unpacks(at, limits, tmp_path) == ["bot.py", "data.bin"]
    past = make_zip(tmp_path / "past.zip", {"bot.py": BOT, "data.bin": b"x" * (4097 - len(BOT))})
    refused(past, limits, tmp_path, "the zip unpacks to more than 0.00390625 MiB")


def test_compression_ratio(tmp_path):
    archive = make_zip(tmp_path / "r.zip", {"bot.py": BOT, "zeros.bin": bytes(50_000)}, zipfile.ZIP_DEFLATED)
    with zipfile.ZipFile(archive) as opened:
        member = opened.getinfo("zeros.bin")
    smallest_accepted = -(-member.file_size // member.compress_size)  # its ratio, rounded up to a limit
    assert unpacks(archive, UnpackLimits(compression_ratio=smallest_accepted), tmp_path) == ["bot.py", "zeros.bin"]
    refused(archive, UnpackLimits(compression_ratio=smallest_accepted - 1), tmp_path, "looks like a zip bomb")


def test_archive_and_py_bytes(tmp_path):
    archive = make_zip(tmp_path / "size.zip", {"bot.py": BOT})
    size = archive.stat().st_size
    assert unpacks(archive, UnpackLimits(zip_bytes=size), tmp_path) == ["bot.py"]
    out = tmp_path / "size-out"
    out.mkdir()
    with pytest.raises(BotPackageError, match=r"a \.zip upload may be at most"):
        unpack_bot(archive, out, UnpackLimits(zip_bytes=size - 1))
    source = tmp_path / "bot.py"
    source.write_bytes(BOT)
    (tmp_path / "py-at").mkdir()
    unpack_bot(source, tmp_path / "py-at", UnpackLimits(py_bytes=len(BOT)))
    assert (tmp_path / "py-at" / "bot.py").read_bytes() == BOT
    (tmp_path / "py-past").mkdir()
    with pytest.raises(BotPackageError, match=r"a \.py upload may be at most"):
        unpack_bot(source, tmp_path / "py-past", UnpackLimits(py_bytes=len(BOT) - 1))


def test_folder_depth(tmp_path):
    limits = UnpackLimits()
    deep = "/".join(f"d{level}" for level in range(limits.zip_depth))
    at = make_zip(tmp_path / "at.zip", {"bot.py": BOT, f"{deep}/leaf.py": b"X = 1\n"})
    assert unpacks(at, limits, tmp_path) == ["bot.py", f"{deep}/leaf.py"]
    past = make_zip(tmp_path / "past.zip", {"bot.py": BOT, f"{deep}/one-more/leaf.py": b"X = 1\n"})
    refused(past, limits, tmp_path, f"17 folders deep; at most {limits.zip_depth} are allowed")
    folder = make_zip(tmp_path / "folder.zip", {"bot.py": BOT, f"{deep}/one-more/": b""})  # a folder entry too
    refused(folder, limits, tmp_path, "17 folders deep")


def test_name_bytes_counts_utf8_bytes_up_to_what_a_file_system_holds(tmp_path):
    limits = UnpackLimits()
    assert limits.name_bytes == 255  # NAME_MAX: the default name limit is what the worker's file system stores
    name = "é" * ((limits.name_bytes - 3) // 2) + ".py"  # two bytes a character
    name += "x" * (limits.name_bytes - len(name.encode()))
    assert len(name.encode()) == limits.name_bytes
    at = make_zip(tmp_path / "at.zip", {"bot.py": BOT, f"lib/{name}": b""})
    assert unpacks(at, limits, tmp_path) == ["bot.py", f"lib/{name}"]
    past = make_zip(tmp_path / "past.zip", {"bot.py": BOT, f"lib/{name}x": b""})
    refused(past, limits, tmp_path, "a name of more than 255 bytes")


def test_path_bytes(tmp_path):
    limits = UnpackLimits()
    folders = "/".join(["f" * 100] * 9)  # 908 bytes
    leaf = "l" * (limits.path_bytes - len(folders) - 1)
    at = make_zip(tmp_path / "at.zip", {"bot.py": BOT, f"{folders}/{leaf}": b""})
    assert unpacks(at, limits, tmp_path) == ["bot.py", f"{folders}/{leaf}"]
    past = make_zip(tmp_path / "past.zip", {"bot.py": BOT, f"{folders}/{leaf}l": b""})
    refused(past, limits, tmp_path, "a path of more than 1024 bytes")
