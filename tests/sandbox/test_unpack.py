"""Unpacking uploads: .py and .zip bots in, unsafe or oversized archives out with a named reason."""

from __future__ import annotations

import stat
import zipfile

import pytest

from bots.sandbox import BotPackageError, unpack_bot
from bots.sandbox.unpack import UnpackLimits, bot_version, check_archive


def make_zip(path, entries):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            if isinstance(data, zipfile.ZipInfo):
                archive.writestr(data, b"target")
            else:
                archive.writestr(name, data)
    return path


def test_a_py_file_becomes_bot_py(tmp_path):
    source = tmp_path / "mine.py"
    source.write_text("def play(o):\n    return []\n")
    (tmp_path / "out").mkdir()
    unpack_bot(source, tmp_path / "out")
    assert (tmp_path / "out" / "bot.py").read_text() == source.read_text()
    assert bot_version(source).startswith("sha256:") and len(bot_version(source)) == 71


def test_a_zip_keeps_its_modules_and_data(tmp_path):
    archive = make_zip(tmp_path / "b.zip", {"bot.py": "import helper\n", "helper.py": "X = 1\n", "data/t.json": "{}"})
    (tmp_path / "out").mkdir()
    unpack_bot(archive, tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")) == [
        "bot.py", "data", "data/t.json", "helper.py",
    ]  # fmt: skip


def link_entry(name):
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def special_entry(name):
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFIFO | 0o644) << 16
    return info


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        ({"src/bot.py": "x"}, "no bot.py at its top level"),
        ({"bot.py": "x", "/etc/cron.d/x": "x"}, "absolute path"),
        ({"bot.py": "x", "../escape.py": "x"}, "leaves the bot's folder"),
        ({"bot.py": "x", "a/../b.py": "x"}, "leaves the bot's folder"),
        ({"bot.py": "x", "a\\b.py": "x"}, "backslash"),
        ({"bot.py": "x", "passwd": link_entry("passwd")}, "a link: passwd"),
        ({"bot.py": "x", "fifo": special_entry("fifo")}, "a special file: fifo"),
        ({"bot.py": "x", "lib": "x", "lib/helper.py": "x"}, "lib both as a file and as a folder"),
        ({"bot.py": "x", "./": "x"}, "names no file"),
    ],
)
def test_unsafe_zips_are_refused(tmp_path, entries, words):
    archive = make_zip(tmp_path / "b.zip", entries)
    (tmp_path / "out").mkdir()
    with pytest.raises(BotPackageError, match=words):
        unpack_bot(archive, tmp_path / "out")


def test_size_count_and_ratio_limits_are_checked_before_anything_is_written(tmp_path):
    bomb = make_zip(tmp_path / "bomb.zip", {"bot.py": "x", "zeros.bin": b"\0" * (2 << 20)})
    assert bomb.stat().st_size < 100_000
    for limits, words in [
        (UnpackLimits(unpacked_bytes=1 << 20, compression_ratio=10_000), "unpacks to more than 1 MiB"),
        (UnpackLimits(), "zeros.bin is compressed .* to 1; more than 100 to 1 looks like a zip bomb"),
        (UnpackLimits(zip_bytes=1000), "bomb.zip is .* MiB; a .zip upload may be at most 0.000953674 MiB"),
    ]:
        out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
        out.mkdir()
        with pytest.raises(BotPackageError, match=words):
            unpack_bot(bomb, out, limits)
        assert list(out.iterdir()) == []
    many = make_zip(tmp_path / "many.zip", {"bot.py": "x", **{f"m{i}.py": "" for i in range(10)}})
    (tmp_path / "out2").mkdir()
    with pytest.raises(BotPackageError, match="the zip holds 11 entries; at most 5 are allowed"):
        unpack_bot(many, tmp_path / "out2", UnpackLimits(zip_entries=5))
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * 2000)
    with pytest.raises(BotPackageError, match="a .py upload may be at most"):
        unpack_bot(big, tmp_path / "out2", UnpackLimits(py_bytes=1000))


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "10"])
def test_limits_must_be_positive_integers(value):
    with pytest.raises(ValueError, match="zip_entries must be a positive integer"):
        UnpackLimits(zip_entries=value)


def test_name_and_path_limits_stay_within_what_the_file_system_holds():
    assert UnpackLimits(name_bytes=255, path_bytes=3072).name_bytes == 255  # at the bounds: allowed
    with pytest.raises(ValueError, match="name_bytes must be at most 255, not 256"):
        UnpackLimits(name_bytes=256)  # a name the file system refuses (ENAMETOOLONG) after the check let it through
    with pytest.raises(ValueError, match="path_bytes must be at most 3072, not 3073"):
        UnpackLimits(path_bytes=3073)


def test_what_the_shared_check_accepts_always_unpacks(tmp_path):
    """The upload check and the unpacker share check_archive: a zip either fails it or unpacks completely."""
    cases = {
        "plain": {"bot.py": "x", "lib/helper.py": "X = 1\n"},
        "folder entries": {"lib/": "", "bot.py": "x", "lib/deep/": "", "lib/deep/t.json": "{}"},
        "dot segments": {"bot.py": "x", "./lib/a.py": "x"},
        "conflict": {"bot.py": "x", "lib/a.py": "x", "lib": "x"},
        "dir and file twice": {"bot.py": "x", "lib/": "", "lib": "x"},
    }
    accepted = set()
    for name, entries in cases.items():
        archive = make_zip(tmp_path / f"{name}.zip", entries)
        with zipfile.ZipFile(archive) as opened:
            try:
                check_archive(opened, UnpackLimits())
            except BotPackageError:
                continue
        accepted.add(name)
        out = tmp_path / f"out-{name}"
        out.mkdir()
        unpack_bot(archive, out)
        assert (out / "bot.py").is_file(), name
    assert accepted == {"plain", "folder entries", "dot segments"}


def test_other_files_are_refused_by_name(tmp_path):
    (tmp_path / "out").mkdir()
    notes = tmp_path / "bot.txt"
    notes.write_text("hi")
    with pytest.raises(BotPackageError, match="not 'bot.txt'"):
        unpack_bot(notes, tmp_path / "out")
    fake = tmp_path / "fake.zip"
    fake.write_text("not a zip")
    with pytest.raises(BotPackageError, match="not a readable zip"):
        unpack_bot(fake, tmp_path / "out")
    with pytest.raises(BotPackageError, match="does not exist"):
        unpack_bot(tmp_path / "missing.py", tmp_path / "out")
