"""Whatever zip the shared check accepts, the worker unpacks: Hypothesis builds zips of every shape the rules are
about (deep folders, long and multi-byte names, dot segments, folder entries, links and special files, repeated and
conflicting names, big members) under limits near those shapes, and every zip `check_archive` accepts must go through
the worker's whole preparation of a bot's folder (unpacking, bytecode, permissions) without an error."""

from __future__ import annotations

import shutil
import stat
import tempfile
import warnings
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.sandbox import BotPackageError, workdirs
from bots.sandbox.limits import SandboxLimits
from bots.sandbox.unpack import NAME_MAX, PATH_BYTES_MAX, UnpackLimits, check_archive

KINDS = {
    "file": stat.S_IFREG | 0o644,
    "folder": stat.S_IFDIR | 0o755,
    "unmarked": 0,
    "link": stat.S_IFLNK | 0o777,
    "fifo": stat.S_IFIFO | 0o644,
}
COMPONENTS = st.one_of(
    st.sampled_from(["bot.py", "lib", "helper.py", "__pycache__", "data", ".", "..", "", "a"]),
    st.text(alphabet="abé€_.", min_size=1, max_size=12),
    st.integers(min_value=240, max_value=270).map(lambda size: "n" * size),  # around NAME_MAX
    st.integers(min_value=120, max_value=140).map(lambda size: "é" * size),  # two bytes a character
)


@st.composite
def members(draw: st.DrawFn) -> tuple[str, str, bytes]:
    if draw(st.integers(min_value=0, max_value=9)) == 0:  # a folder in a folder in a folder... a thousand times
        name = "/".join(["d"] * draw(st.integers(min_value=900, max_value=1200)) + ["leaf.py"])
    else:
        depth = draw(st.integers(min_value=1, max_value=24))
        name = "/".join(draw(st.lists(COMPONENTS, min_size=depth, max_size=depth)))
    name = draw(st.sampled_from(["", "./", "/"])) + name + draw(st.sampled_from(["", "", "/"]))
    kind = draw(st.sampled_from(list(KINDS)))
    data = draw(st.sampled_from([b"", b"X = 1\n", b"def f(:\n", bytes(5000), b"x" * 300]))
    return name, kind, data


@st.composite
def limits(draw: st.DrawFn) -> UnpackLimits:
    return UnpackLimits(
        zip_entries=draw(st.integers(min_value=1, max_value=12)),
        unpacked_bytes=draw(st.integers(min_value=100, max_value=20_000)),
        compression_ratio=draw(st.integers(min_value=1, max_value=200)),
        zip_depth=draw(st.integers(min_value=1, max_value=2000)),
        name_bytes=draw(st.integers(min_value=8, max_value=NAME_MAX)),
        path_bytes=draw(st.integers(min_value=16, max_value=PATH_BYTES_MAX)),
    )


def write_zip(path: Path, entries: list[tuple[str, str, bytes]], with_bot: bool) -> None:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # a name given twice: the check's to refuse
        if with_bot:
            archive.writestr("bot.py", b"def play(observation):\n    return []\n")
        for name, kind, data in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = KINDS[kind] << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(members(), max_size=6), with_bot=st.booleans(), unpack_limits=limits())
def test_what_the_check_accepts_the_worker_unpacks(entries, with_bot, unpack_limits):
    scratch = Path(tempfile.mkdtemp(prefix="unpack-property-"))
    scratch.chmod(0o755)  # the sandbox's uid must reach the bot's folder under it
    try:
        archive = scratch / "bot.zip"
        write_zip(archive, entries, with_bot)
        try:
            with zipfile.ZipFile(archive) as opened:
                accepted = check_archive(opened, unpack_limits)
        except BotPackageError:
            return  # refused, with a reason for the uploader: nothing reaches a worker
        # what a worker does before it starts the sandbox
        workdir = workdirs.prepare(archive, SandboxLimits(), unpack_limits, str(scratch))
        unpacked = workdir / "bot"
        for member, path in accepted:
            target = unpacked / path
            assert target.is_dir() if member.is_dir() else target.is_file(), path
        assert (unpacked / "bot.py").is_file()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
