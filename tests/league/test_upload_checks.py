"""Every way inspect_upload refuses a bot, each with the message the uploader sees."""

import io
import stat
import zipfile

import pytest

from league.arena.uploads.intake import UploadRejected, inspect_upload

GOOD_BOT = b"def play(observation):\n    return []\n"


def make_zip(files, **kwargs):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=kwargs.get("compression", zipfile.ZIP_DEFLATED)) as archive:
        for name, content in files.items():
            if isinstance(name, zipfile.ZipInfo):
                archive.writestr(name, content)
            else:
                archive.writestr(name, content)
    return buffer.getvalue()


def rejected(filename, data):
    with pytest.raises(UploadRejected) as caught:
        inspect_upload(filename, data)
    return str(caught.value)


def test_it_accepts_a_python_file_and_hashes_it():
    upload = inspect_upload("my bot.py", GOOD_BOT)
    assert upload.kind == "py"
    assert upload.filename == "my bot.py"
    assert len(upload.sha256) == 64 and upload.sha256 != inspect_upload("b.py", GOOD_BOT + b"\n").sha256


def test_it_accepts_a_zip_with_bot_py_and_helpers():
    upload = inspect_upload("bot.zip", make_zip({"bot.py": GOOD_BOT, "lib/helper.py": b"X = 1\n", "data.txt": b"x"}))
    assert upload.kind == "zip"


def test_it_rejects_other_file_types():
    assert rejected("bot.exe", b"MZ") == "bot.exe is neither a .py file nor a .zip archive"


def test_it_rejects_an_empty_file():
    assert rejected("bot.py", b"") == "bot.py is empty"


def test_it_rejects_a_python_file_over_the_limit(settings):
    settings.ARENA_MAX_PY_BYTES = 1 << 20
    assert rejected("bot.py", b"#" * ((1 << 20) + 1)) == "bot.py is 1 MiB; a .py upload may be at most 1 MiB"
    assert rejected("bot.py", b"#" * (2 << 20)) == "bot.py is 2 MiB; a .py upload may be at most 1 MiB"


def test_it_rejects_a_zip_over_the_limit(settings):
    settings.ARENA_MAX_ZIP_BYTES = 1 << 20
    assert rejected("b.zip", b"PK" * (3 << 19)) == "b.zip is 3 MiB; a .zip upload may be at most 1 MiB"


def test_it_rejects_python_that_is_not_utf8():
    message = rejected("bot.py", b"x = 1\ny = '\xff'\n")
    assert message == "bot.py is not UTF-8 text: byte 11 (line 2) cannot be decoded"


def test_it_rejects_python_that_does_not_compile():
    message = rejected("bot.py", b"def play(observation)\n    return []\n")
    assert message.startswith("bot.py does not compile: line 1: ")


def test_it_rejects_python_with_nul_bytes():
    assert rejected("bot.py", b"x = 1\0\n").startswith("bot.py does not compile: ")


def test_it_rejects_something_that_is_not_a_zip():
    assert rejected("bot.zip", b"this is not a zip") == "the file is not a readable zip archive"


def test_it_rejects_a_zip_with_too_many_entries(settings):
    settings.ARENA_MAX_ZIP_ENTRIES = 200
    files = {"bot.py": GOOD_BOT} | {f"f{i}.txt": b"x" for i in range(200)}
    assert rejected("bot.zip", make_zip(files)) == "the zip holds 201 entries; at most 200 are allowed"


def test_it_rejects_absolute_paths():
    data = make_zip({"bot.py": GOOD_BOT, "/etc/cron.d/evil": b"x"})
    assert rejected("bot.zip", data) == "the zip holds an absolute path: /etc/cron.d/evil"


def test_it_rejects_paths_that_climb_out():
    data = make_zip({"bot.py": GOOD_BOT, "lib/../../evil.py": b"x = 1\n"})
    assert rejected("bot.zip", data) == "the zip holds a path that leaves the bot's folder: lib/../../evil.py"


def test_it_rejects_backslash_paths():
    data = make_zip({"bot.py": GOOD_BOT, "lib\\x.py": b"x = 1\n"})
    assert rejected("bot.zip", data) == "the zip holds a path with a backslash: lib\\x.py"


def test_it_rejects_links():
    link = zipfile.ZipInfo("secrets.py")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    data = make_zip({"bot.py": GOOD_BOT, link: b"/etc/shadow"})
    assert rejected("bot.zip", data) == "the zip holds a link: secrets.py; links are not allowed"


def test_it_rejects_a_name_given_twice():
    buffer = io.BytesIO()
    with pytest.warns(UserWarning), zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        archive.writestr("bot.py", b"raise SystemExit\n")
    assert rejected("bot.zip", buffer.getvalue()) == "the zip holds bot.py twice"


def test_it_rejects_encrypted_entries():
    data = bytearray(make_zip({"bot.py": GOOD_BOT}))
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 0x1  # the "encrypted" flag bit in the central directory
    assert rejected("bot.zip", bytes(data)) == "the zip holds an encrypted entry: bot.py"


def test_it_rejects_too_much_unpacked_data(settings):
    settings.ARENA_MAX_UNPACKED_BYTES = 50 << 20
    settings.ARENA_MAX_COMPRESSION_RATIO = 10_000
    chunk = b"0123456789abcdef" * (1 << 16)  # 1 MiB each, stored so the archive stays honest
    files = {"bot.py": GOOD_BOT} | {f"blob{i}.bin": chunk for i in range(51)}
    data = make_zip(files, compression=zipfile.ZIP_STORED)
    settings.ARENA_MAX_ZIP_BYTES = len(data) + 1
    assert rejected("bot.zip", data) == "the zip unpacks to more than 50 MiB"


def test_it_rejects_a_zip_bomb_ratio():
    data = make_zip({"bot.py": GOOD_BOT, "zeros.bin": b"\0" * (5 << 20)})
    message = rejected("bot.zip", data)
    assert message.startswith("zeros.bin is compressed ")
    assert message.endswith("to 1; more than 100 to 1 looks like a zip bomb")


def test_it_rejects_a_zip_without_bot_py():
    data = make_zip({"src/bot.py": GOOD_BOT, "main.py": GOOD_BOT})
    assert rejected("bot.zip", data) == "the zip has no bot.py at its top level"


def test_it_rejects_a_folder_named_bot_py():
    data = make_zip({"bot.py/": b"", "bot.py/x.py": GOOD_BOT})
    assert rejected("bot.zip", data) == "the zip has no bot.py at its top level"


def test_it_rejects_zipped_python_that_is_not_utf8():
    data = make_zip({"bot.py": GOOD_BOT, "lib/names.py": b"N = '\xe9'\n"})
    assert rejected("bot.zip", data) == "lib/names.py is not UTF-8 text: byte 5 (line 1) cannot be decoded"


def test_it_rejects_zipped_python_that_does_not_compile():
    data = make_zip({"bot.py": b"import lib\ndef play(o) return []\n"})
    assert rejected("bot.zip", data).startswith("bot.py does not compile: line 2: ")


def test_it_rejects_a_corrupted_member():
    data = bytearray(make_zip({"bot.py": GOOD_BOT * 50}, compression=zipfile.ZIP_STORED))
    start = data.index(b"def play")
    data[start : start + 3] = b"DEF"  # content no longer matches its CRC
    assert rejected("bot.zip", bytes(data)) == "bot.py cannot be unpacked: Bad CRC-32 for file 'bot.py'"
