"""The worker unpacks a bot with the limits the upload was checked against: the league's settings, passed down."""

from __future__ import annotations

import io
import zipfile

import pytest

from bots.sandbox.unpack import BotPackageError, UnpackLimits, unpack_bot
from league.arena.lib.unpack_limits import upload_limits
from league.arena.models import Match
from league.arena.play.matches import match_spec
from league.arena.uploads.intake import UploadRejected, inspect_upload

GOOD_BOT = b"def play(observation):\n    return []\n"


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_the_limits_come_from_the_settings(settings):
    settings.ARENA_MAX_PY_BYTES = 1000
    settings.ARENA_MAX_ZIP_BYTES = 2000
    settings.ARENA_MAX_ZIP_ENTRIES = 3
    settings.ARENA_MAX_UNPACKED_BYTES = 4000
    settings.ARENA_MAX_COMPRESSION_RATIO = 5
    assert upload_limits() == UnpackLimits(1000, 2000, 3, 4000, 5)


@pytest.mark.django_db
def test_a_match_carries_them_to_the_sandboxed_player(settings):
    settings.ARENA_MAX_ZIP_ENTRIES = 7
    match = Match.objects.create(kind=Match.Kind.LADDER, game="face-to-face", games=1, seed="limits")
    assert match_spec(match, []).unpack_limits == upload_limits() == UnpackLimits(zip_entries=7)


@pytest.mark.parametrize(
    "files",
    [
        {"bot.py": GOOD_BOT, **{f"m{i}.py": b"" for i in range(5)}},  # too many entries for the settings below
        {"bot.py": GOOD_BOT, "lib": b"x", "lib/a.py": b"x = 1\n"},  # lib as a file and a folder
        {"bot.py": GOOD_BOT, "data.bin": b"\0" * 5000},  # more than the settings' unpacked bytes
        {"bot.py": GOOD_BOT, "/".join(["d"] * 1000) + "/x.py": b""},  # deeper than any walk of the folder reaches
        {"bot.py": GOOD_BOT, "n" * 256 + ".py": b""},  # a name no Linux file system holds
    ],
    ids=["entries", "file and folder", "unpacked bytes", "depth", "name length"],
)
def test_the_upload_check_and_the_unpacker_refuse_the_same_zips(settings, tmp_path, files):
    settings.ARENA_MAX_ZIP_ENTRIES = 4
    settings.ARENA_MAX_UNPACKED_BYTES = 4096
    data = zip_bytes(files)
    with pytest.raises(UploadRejected) as upload_error:
        inspect_upload("bot.zip", data)
    archive = tmp_path / "bot.zip"
    archive.write_bytes(data)
    (tmp_path / "out").mkdir()
    with pytest.raises(BotPackageError) as unpack_error:
        unpack_bot(archive, tmp_path / "out", upload_limits())
    assert str(upload_error.value) == str(unpack_error.value)
