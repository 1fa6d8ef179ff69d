"""Health checks of the compose services: `healthcheck.py web|worker|beat` exits 0 when the service answers.

web     GET /healthz on this container's gunicorn (urllib: slim images have no curl), expecting 200 "ok"
worker  this container's Celery worker (node celery@HOSTNAME) answers a ping over the broker
beat    the broker the clock sends to accepts a connection
"""

from __future__ import annotations

import os
import socket
import sys
import urllib.error
import urllib.request

TIMEOUT_SECONDS = 10.0


def request_host(allowed_hosts: str) -> str:
    """A Host header the site accepts: the first ALLOWED_HOSTS entry, made concrete if it is a pattern."""
    first = next((host.strip() for host in allowed_hosts.split(",") if host.strip()), "localhost")
    if first == "*":
        return "localhost"
    return first.lstrip(".")  # ".example.org" allows example.org itself


def check_web() -> str | None:
    url = f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/healthz"
    host = request_host(os.environ.get("ALLOWED_HOSTS", "localhost"))
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            body = response.read(200).decode(errors="replace")
    except urllib.error.HTTPError as error:
        return f"{url} (Host: {host}) answered {error.code}: {error.read(200).decode(errors='replace')}"
    except OSError as error:
        return f"{url} is unreachable: {error}"
    return None if body == "ok" else f"{url} answered {body!r}"


def check_worker() -> str | None:
    from league.celery import app

    node = f"celery@{socket.gethostname()}"
    replies = app.control.ping(destination=[node], timeout=TIMEOUT_SECONDS / 2, limit=1)
    if not any(node in reply for reply in replies):
        return f"the worker {node} did not answer a ping within {TIMEOUT_SECONDS / 2:.0f} s"
    return None


def check_beat() -> str | None:
    from league.celery import app

    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=TIMEOUT_SECONDS)
    except Exception as error:  # kombu raises the transport's own errors
        return f"the broker is unreachable: {error}"
    return None


CHECKS = {"web": check_web, "worker": check_worker, "beat": check_beat}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CHECKS:
        print(f"usage: healthcheck.py {'|'.join(CHECKS)}", file=sys.stderr)
        return 64
    problem = CHECKS[argv[0]]()
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print("healthy")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
