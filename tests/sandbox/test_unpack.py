"""Unpacking uploads: .py and .zip bots in, unsafe or oversized archives out with a named reason."""

from __future__ import annotations

import stat
import zipfile

import pytest

from bots.sandbox import BotPackageError, unpack_bot
from bots.sandbox.unpack import bot_version


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


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        ({"src/bot.py": "x"}, "no bot.py at its root"),
        ({"bot.py": "x", "/etc/cron.d/x": "x"}, "points outside"),
        ({"bot.py": "x", "../escape.py": "x"}, "points outside"),
        ({"bot.py": "x", "a/../b.py": "x"}, "contains '..'"),
        ({"bot.py": "x", "a\\b.py": "x"}, "backslash"),
        ({"bot.py": "x", "passwd": link_entry("passwd")}, "link or special file"),
    ],
)
def test_unsafe_zips_are_refused(tmp_path, entries, words):
    archive = make_zip(tmp_path / "b.zip", entries)
    (tmp_path / "out").mkdir()
    with pytest.raises(BotPackageError, match=words):
        unpack_bot(archive, tmp_path / "out")


def test_size_and_count_limits_count_what_is_really_inflated(tmp_path):
    bomb = make_zip(tmp_path / "bomb.zip", {"bot.py": "x", "zeros.bin": b"\0" * (2 << 20)})
    assert bomb.stat().st_size < 100_000
    (tmp_path / "out").mkdir()
    with pytest.raises(BotPackageError, match="more than 1048576 bytes"):
        unpack_bot(bomb, tmp_path / "out", max_bytes=1 << 20)
    many = make_zip(tmp_path / "many.zip", {"bot.py": "x", **{f"m{i}.py": "" for i in range(10)}})
    (tmp_path / "out2").mkdir()
    with pytest.raises(BotPackageError, match="11 entries, more than 5"):
        unpack_bot(many, tmp_path / "out2", max_files=5)


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
