"""Production settings from the environment pass `manage.py check --deploy`; every page carries a strict CSP."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION = {
    "DEBUG": "false",
    "ALLOWED_HOSTS": "arena.example.org",
    "BEHIND_TLS_PROXY": "true",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
}


def check_deploy(tmp_path, **env: str) -> subprocess.CompletedProcess:
    environ = {
        key: value for key, value in os.environ.items() if not key.startswith(("SECURE_", "DEBUG", "DATABASE_URL"))
    }
    environ.update(SECRET_KEY=secrets.token_urlsafe(50), ARENA_DATA_DIR=str(tmp_path), **env)
    command = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    return subprocess.run(command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120)


def test_production_settings_from_the_environment_pass_check_deploy(tmp_path):
    done = check_deploy(tmp_path, **PRODUCTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_without_hsts_and_ssl_redirect_check_deploy_warns(tmp_path):
    done = check_deploy(tmp_path, **{**PRODUCTION, "SECURE_HSTS_SECONDS": "0", "SECURE_SSL_REDIRECT": "false"})
    assert done.returncode != 0
    assert "security.W004" in done.stderr and "security.W008" in done.stderr
