"""The page cache and the database connections are configured from the environment (docs/operators.md)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from league.env import env_caches

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_cache_url_fragments_stay_in_memory_and_tokens_on_disk(monkeypatch, tmp_path):
    monkeypatch.delenv("CACHE_URL", raising=False)
    caches = env_caches("CACHE_URL", tmp_path / "tokens", timeout=300)
    assert caches["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert caches["default"]["TIMEOUT"] == 300
    assert caches["generations"]["BACKEND"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert caches["generations"]["LOCATION"] == str(tmp_path / "tokens") and caches["generations"]["TIMEOUT"] is None


@pytest.mark.parametrize(
    "url", ["redis://cache.internal:6379/1", "rediss://:pw@cache:6380/0", "unix:///run/redis.sock"]
)
def test_a_redis_url_shares_fragments_and_tokens(monkeypatch, tmp_path, url):
    monkeypatch.setenv("CACHE_URL", url)
    caches = env_caches("CACHE_URL", tmp_path, timeout=120)
    for alias in ("default", "generations"):
        assert caches[alias]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
        assert caches[alias]["LOCATION"] == url
    assert caches["default"]["TIMEOUT"] == 120 and caches["generations"]["TIMEOUT"] is None


def test_dummy_turns_the_page_cache_off(monkeypatch, tmp_path):
    monkeypatch.setenv("CACHE_URL", "dummy://")
    assert env_caches("CACHE_URL", tmp_path, 300)["default"]["BACKEND"] == "django.core.cache.backends.dummy.DummyCache"


@pytest.mark.parametrize("url", ["memcached://cache:11211", "redis", "cache.internal:6379"])
def test_an_unknown_cache_url_names_the_variable(monkeypatch, tmp_path, url):
    monkeypatch.setenv("CACHE_URL", url)
    with pytest.raises(ImproperlyConfigured, match=f"CACHE_URL={url!r} is not a cache URL"):
        env_caches("CACHE_URL", tmp_path, 300)


def settings_with(**env: str) -> subprocess.CompletedProcess:
    """Load league.settings in a fresh process with these variables and print what it made of them."""
    script = (
        "import json; from league import settings as s; d = s.DATABASES['default']\n"
        "print(json.dumps([d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS'], s.CACHES['default']['BACKEND']]))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_CONN", "CACHE_"))}
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=60
    )


def test_database_connections_persist_with_health_checks_by_default():
    done = settings_with()
    assert json.loads(done.stdout) == [60, True, "django.core.cache.backends.locmem.LocMemCache"]
    done = settings_with(DATABASE_CONN_MAX_AGE="0", DATABASE_CONN_HEALTH_CHECKS="false", CACHE_URL="redis://r:6379/3")
    assert json.loads(done.stdout) == [0, False, "django.core.cache.backends.redis.RedisCache"]


def test_a_bad_connection_setting_names_its_variable():
    done = settings_with(DATABASE_CONN_HEALTH_CHECKS="sometimes")
    assert done.returncode != 0 and "DATABASE_CONN_HEALTH_CHECKS='sometimes' is not a boolean" in done.stderr
    done = settings_with(DATABASE_CONN_MAX_AGE="-5")
    assert done.returncode != 0 and "DATABASE_CONN_MAX_AGE=-5 is below its minimum 0" in done.stderr
    done = settings_with(CACHE_TIMEOUT="soon")
    assert done.returncode != 0 and "CACHE_TIMEOUT='soon' is not an integer" in done.stderr
