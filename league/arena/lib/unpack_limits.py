"""The limits an uploaded bot's archive must keep, from the settings: the upload check applies them at once, and the
worker's unpacker applies them again before a bot runs."""

from __future__ import annotations

from django.conf import settings

from bots.sandbox.unpack import UnpackLimits


def upload_limits() -> UnpackLimits:
    return UnpackLimits(
        py_bytes=settings.ARENA_MAX_PY_BYTES,
        zip_bytes=settings.ARENA_MAX_ZIP_BYTES,
        zip_entries=settings.ARENA_MAX_ZIP_ENTRIES,
        unpacked_bytes=settings.ARENA_MAX_UNPACKED_BYTES,
        compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
    )
