"""Tiny typed readers for settings that come from the environment.

Each raises ImproperlyConfigured naming the variable when its value cannot be understood,
so a typo in a deployment fails at start-up instead of silently falling back to a default.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use one of true/false, 1/0, yes/no, on/off")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below its minimum {minimum}")
    return value


def env_float(name: str, default: float, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below its minimum {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


_REDIS_SCHEMES = {"redis", "rediss", "unix"}


def env_caches(name: str, shared_dir: Path, timeout: int) -> dict[str, dict[str, Any]]:
    """Django's CACHES from a cache URL: "default" keeps rendered page fragments for `timeout` seconds,
    "generations" the tokens saying which fragments are current (league/arena/lib/caching.py).

    Worker processes change the tokens, so the tokens live where every process sees them: the same Redis,
    or without one a folder on this machine. Unset, fragments stay in each process's own memory.
    """
    raw = os.environ.get(name, "").strip()
    scheme = raw.partition("://")[0].lower() if "://" in raw else None
    on_disk = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(shared_dir),
        "TIMEOUT": None,
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    }
    if not raw:
        fragments = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "arena-pages"}
        fragments["OPTIONS"] = {"MAX_ENTRIES": 2000}
        generations = on_disk
    elif scheme in _REDIS_SCHEMES:
        # A Redis that stops answering slows a page by at most this much before the page renders uncached.
        fragments = {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": raw,
            "KEY_PREFIX": "arena",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
        generations = {**fragments, "TIMEOUT": None}
    elif raw.lower() == "dummy://":
        fragments, generations = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}, on_disk
    else:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a cache URL: use redis://host:6379/1 (or rediss://, unix://) or dummy://"
        )
    return {"default": {**fragments, "TIMEOUT": timeout}, "generations": generations}
