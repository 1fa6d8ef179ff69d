"""Checking an uploaded bot at once, and storing it as a new version that then gets validated.

`inspect_upload` refuses anything that is too big, an unsafe zip, missing bot.py, not UTF-8 or
not valid Python, each with a message naming what is wrong. `add_version` stores an accepted
upload and its validation match in one transaction, so a failure leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import zipfile
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from bots.sandbox.unpack import BotPackageError, UnpackLimits, check_archive
from league.arena import queue
from league.arena.house import house_version
from league.arena.models import Bot, BotUpload, BotVersion, Match


class UploadRejected(ValueError):
    """The upload cannot be a bot; the message says why, for the person who sent it."""


@dataclass(frozen=True)
class InspectedUpload:
    filename: str
    kind: str
    content: bytes
    sha256: str


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


def _check_source(name: str, data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UploadRejected(f"{name} is not UTF-8 text: byte {error.start} (line {line}) cannot be decoded") from None
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise UploadRejected(f"{name} does not compile: line {error.lineno}: {error.msg}") from None
    except ValueError as error:  # e.g. NUL bytes in the source
        raise UploadRejected(f"{name} does not compile: {error}") from None


def upload_limits() -> UnpackLimits:
    """The limits from the settings: the upload check applies them, and the worker's unpacker again."""
    return UnpackLimits(
        py_bytes=settings.ARENA_MAX_PY_BYTES,
        zip_bytes=settings.ARENA_MAX_ZIP_BYTES,
        zip_entries=settings.ARENA_MAX_ZIP_ENTRIES,
        unpacked_bytes=settings.ARENA_MAX_UNPACKED_BYTES,
        compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
    )


def _check_zip(data: bytes) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise UploadRejected("the file is not a readable zip archive") from None
    with archive:
        try:
            members = check_archive(archive, upload_limits())  # the same rules the worker's unpacker applies
        except BotPackageError as error:
            raise UploadRejected(str(error)) from None
        for member, path in members:
            if member.is_dir():
                continue
            try:
                content = archive.read(member)  # bounded: zipfile stops at the declared size and checks the CRC
            except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError) as error:
                raise UploadRejected(f"{member.filename} cannot be unpacked: {error}") from None
            if path.endswith(".py"):
                _check_source(member.filename, content)


def check_name_and_size(filename: str, size: int) -> tuple[str, str]:
    """The upload's base name and kind, or UploadRejected if its type or size is wrong.

    Needs only the size, so an oversized upload is refused before it is read.
    """
    base = posixpath.basename(filename.replace("\\", "/"))
    lower = base.lower()
    if lower.endswith(".py"):
        kind, limit = BotVersion.Kind.PY, settings.ARENA_MAX_PY_BYTES
    elif lower.endswith(".zip"):
        kind, limit = BotVersion.Kind.ZIP, settings.ARENA_MAX_ZIP_BYTES
    else:
        raise UploadRejected(f"{base or 'the file'} is neither a .py file nor a .zip archive")
    if size == 0:
        raise UploadRejected(f"{base} is empty")
    if size > limit:
        raise UploadRejected(f"{base} is {_mib(size)}; a .{kind} upload may be at most {_mib(limit)}")
    return base, kind


def inspect_upload(filename: str, data: bytes) -> InspectedUpload:
    """Check an upload the way the form does; raise UploadRejected with the reason."""
    base, kind = check_name_and_size(filename, len(data))
    if kind == BotVersion.Kind.PY:
        _check_source(base, data)
    else:
        _check_zip(data)
    return InspectedUpload(filename=base, kind=kind, content=data, sha256=hashlib.sha256(data).hexdigest())


@transaction.atomic
def add_version(bot: Bot, upload: InspectedUpload) -> BotVersion:
    """Store a new version (never replacing an old one) and queue the games that validate it."""
    Bot.objects.select_for_update().filter(pk=bot.pk).get()  # serialises version numbers per bot
    existing = bot.versions.filter(sha256=upload.sha256).first()
    if existing is not None:
        raise UploadRejected(f"this exact file is already version {existing.number} of {bot.name}")
    try:
        with transaction.atomic():
            version = BotVersion.objects.create(
                bot=bot,
                number=bot.next_version_number(),
                sha256=upload.sha256,
                kind=upload.kind,
                filename=upload.filename,
                size=len(upload.content),
            )
    except IntegrityError:
        raise UploadRejected("another upload of this bot arrived at the same moment; please try again") from None
    BotUpload.objects.create(version=version, content=upload.content)
    match = queue_validation(version)
    queue.play_match(match.pk)
    return version


def queue_validation(version: BotVersion) -> Match:
    """The validation match of a new version (index 0) against the house opponent (index 1)."""
    game = version.bot.game
    opponent = house_version(settings.ARENA_VALIDATION_OPPONENT, game)
    return Match.objects.create_with_entries(
        [version, opponent],
        kind=Match.Kind.VALIDATION,
        game=game,
        games=settings.ARENA_VALIDATION_GAMES,
        players=2,
        seed=f"validate-{version.sha256[:16]}",
        duplicate=False,
        turn_seconds=settings.ARENA_TURN_SECONDS,
        bank_seconds=settings.ARENA_BANK_SECONDS,
        startup_seconds=settings.ARENA_STARTUP_SECONDS,
        rated=False,
    )
