"""Checking an uploaded bot at once, and storing it as a new version that then gets validated.

`inspect_upload` refuses anything that is too big, an unsafe zip, missing bot.py, not UTF-8 or
not valid Python, each with a message naming what is wrong. `add_version` stores an accepted
upload and its validation match in one transaction, so a failure leaves nothing behind.

Quotas (settings ARENA_MAX_*): bots per user, versions kept per bot, bytes of kept uploads per user. A pruned
version (its upload deleted by its owner, see league.arena.uploads.versions) counts towards none of them.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import zipfile
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Sum

from bots.sandbox.unpack import BotPackageError, check_archive
from league.arena.lib.unpack_limits import upload_limits
from league.arena.models import Bot, BotUpload, BotVersion
from league.arena.uploads import validation as validations

MAX_FILENAME_CHARS = BotVersion._meta.get_field("filename").max_length


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
        text = data.decode("utf-8-sig")  # Python runs a file that starts with a UTF-8 byte-order mark
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UploadRejected(f"{name} is not UTF-8 text: byte {error.start} (line {line}) cannot be decoded") from None
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise UploadRejected(f"{name} does not compile: line {error.lineno}: {error.msg}") from None
    except (RecursionError, MemoryError):
        # CPython's compiler gives up on deeply nested expressions (250,000 `+` terms, 500,000 unary minuses)
        # early, in little memory; Python could not run such a file either.
        raise UploadRejected(f"{name} does not compile: it is too deeply nested to compile") from None
    except (ValueError, OverflowError) as error:  # e.g. NUL bytes in the source, a constant too large
        raise UploadRejected(f"{name} does not compile: {error}") from None


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
    if len(base) > MAX_FILENAME_CHARS:
        raise UploadRejected(
            f"the file name is {len(base)} characters long; at most {MAX_FILENAME_CHARS} are allowed: "
            "please rename the file"
        )
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


class NameTaken(UploadRejected):
    """The owner already has a bot of that name (the message is for the form's name field)."""


def name_taken(name: str) -> str:
    return f"You already have a bot called {name}; upload a new version of it instead."


def _mib1(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


def kept_bytes(owner_id: int) -> int:
    """The bytes of every upload the user's bots keep (pruned versions left out)."""
    kept = BotVersion.objects.filter(bot__owner_id=owner_id, pruned_at__isnull=True)
    return kept.exclude(kind=BotVersion.Kind.HOUSE).aggregate(total=Sum("size"))["total"] or 0


def _check_bot_quota(owner: Any) -> None:
    limit = settings.ARENA_MAX_BOTS_PER_USER
    if Bot.objects.filter(owner=owner).count() >= limit:
        raise UploadRejected(f"you already have {limit} bots, the most one account may have")


def _check_version_quotas(bot: Bot, size: int) -> None:
    limit = settings.ARENA_MAX_VERSIONS_PER_BOT
    if bot.versions.filter(pruned_at__isnull=True).count() >= limit:
        raise UploadRejected(
            f"{bot.name} keeps {limit} versions, the most a bot may keep: prune an old version on the bot's page "
            "(its games stay) to upload a new one"
        )
    used, allowed = kept_bytes(bot.owner_id), settings.ARENA_MAX_UPLOAD_BYTES_PER_USER
    if used + size > allowed:
        raise UploadRejected(
            f"your bots' kept uploads take {_mib1(used)}; this one ({_mib1(size)}) would pass your allowance of "
            f"{_mib1(allowed)}: prune old versions on your bots' pages to make room"
        )


@transaction.atomic
def add_bot(owner: Any, name: str, game: str, description: str, upload: InspectedUpload) -> Bot:
    """A new bot with its first version; NameTaken when a bot of that name exists (a double submit, say)."""
    # Locking the owner serialises their uploads, so two at once cannot both pass a quota.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).get()
    _check_bot_quota(owner)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, name=name, game=game, description=description)
    except IntegrityError:
        raise NameTaken(name_taken(name)) from None
    add_version(bot, upload)
    return bot


@transaction.atomic
def add_version(bot: Bot, upload: InspectedUpload) -> BotVersion:
    """Store a new version (never replacing an old one) and queue the games that validate it."""
    # Locking the owner serialises their uploads: version numbers per bot, and the quotas.
    get_user_model().objects.select_for_update().filter(pk=bot.owner_id).get()
    bot.refresh_from_db(fields=["disabled_at"])
    if bot.disabled_at is not None:
        raise UploadRejected(f"{bot.name} was disabled by the staff: it takes no new versions")
    existing = bot.versions.filter(sha256=upload.sha256).first()
    if existing is not None:
        raise UploadRejected(f"this exact file is already version {existing.number} of {bot.name}")
    _check_version_quotas(bot, len(upload.content))
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
    validations.release(bot.owner_id)  # queues its validation now, or once the owner's earlier ones finish
    return version
