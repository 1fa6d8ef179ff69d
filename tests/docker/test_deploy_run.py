"""Each compose service's command, run here for real: docker/entrypoint.sh migrate, web, worker, beat.

They run against a database of their own (a fresh PostgreSQL database next to DATABASE_URL's, or SQLite
when DATABASE_URL is not PostgreSQL) and the configured broker, with the health checks compose.yaml runs.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from deploy_files import ENTRYPOINT, ROOT, compose

from bench.harness import listens, unused_port

pytestmark = pytest.mark.slow  # starts servers and sandboxes: tens of seconds

SECRET = "deploy-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz"
HOST = "arena.example.org"


def healthcheck(service: str, environment: dict[str, str]) -> subprocess.CompletedProcess:
    """Run the service's compose health check, with the image's /app mapped to this checkout."""
    test = compose()["services"][service]["healthcheck"]["test"]
    assert test[0] == "CMD"
    command = [word.replace("/app/", f"{ROOT}/") for word in test[1:]]
    assert command[0] == str(ENTRYPOINT)
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=60, cwd="/")


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    configured = os.environ.get("DATABASE_URL", "")
    if not configured.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'deploy.sqlite3'}"
        return
    import psycopg

    parts = urllib.parse.urlsplit(configured)
    name = f"{parts.path.lstrip('/') or 'arena'}_deploy"
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    yield parts._replace(path=f"/{name}").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def environment(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The containers' environment: compose's settings and the image's ENV, on this machine's services."""
    data = tmp_path_factory.mktemp("arena-data")
    return {
        # The image puts its virtual environment's bin first (docker/Dockerfile); here: this interpreter's.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", "/tmp"),
        "DATABASE_URL": database_url,
        "SECRET_KEY": SECRET,
        "DEBUG": "false",
        "ALLOWED_HOSTS": HOST,
        "CSRF_TRUSTED_ORIGINS": f"https://{HOST}",
        "ARENA_DATA_DIR": str(data),
        "STATIC_ROOT": str(data / "static"),
        "ARENA_QUEUE": f"arena-deploy-test-{os.getpid()}",
        "ARENA_LADDER_INTERVAL": "1",  # the beat sends something within seconds
        "WEB_CONCURRENCY": "1",
        "WORKER_CONCURRENCY": "1",
        **broker_and_cache(),
    }


def broker_and_cache() -> dict[str, str]:
    """The configured Redis as broker and, like compose's CACHE_URL, as the shared page cache."""
    broker = os.environ.get("CELERY_BROKER_URL")
    if broker is None:
        return {}  # the embedded filesystem broker and per-process page caches
    assert set(compose()["services"]["web"]["environment"]) == {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"}
    return {"CELERY_BROKER_URL": broker, "CACHE_URL": broker} if broker.startswith("redis://") else {}


def entrypoint(environment: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ENTRYPOINT), *args], env=environment, capture_output=True, text=True, timeout=timeout, cwd="/"
    )


@pytest.fixture(scope="module")
def migrated(environment: dict[str, str]) -> dict[str, str]:
    result = entrypoint(environment, "migrate")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return environment


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen]]:
    """service(environment, "web"): docker/entrypoint.sh SUBCOMMAND in the background, stopped afterwards."""
    started: list[tuple[subprocess.Popen, Path]] = []

    def start(environment: dict[str, str], *args: str) -> subprocess.Popen:
        log = tmp_path / f"{args[0]}-{len(started)}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [str(ENTRYPOINT), *args],
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd="/",
            )
        process.log = log
        started.append((process, log))
        return process

    yield start
    for process, log in started:
        stop(process)
        print(log.name, log.read_text(errors="replace")[-3000:])  # shown when the test failed


def start_web(service: Callable[..., subprocess.Popen], environment: dict[str, str]) -> tuple[subprocess.Popen, int]:
    """`docker/entrypoint.sh web` with PORT a port of its own: (the process, the port), once gunicorn listens there.
    A port someone else took between its choice and gunicorn's bind is chosen again (gunicorn gives up on it)."""
    for _ in range(5):
        port = unused_port()
        web = service({**environment, "PORT": str(port)}, "web")
        if listens(web, port, timeout=90):
            return web, port
    pytest.fail("gunicorn never listened on a port of its own in 5 tries")


def stop(process: subprocess.Popen) -> int:
    """SIGTERM, as `docker stop` sends it, then whatever is left of the process group is killed."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return process.wait()


def wait_until(what: str, check: Callable[[], bool], process: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        assert process.poll() is None, f"the process exited ({process.returncode}) before {what}"
        time.sleep(0.5)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


def get(port: int, path: str, host: str = HOST) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def answers(port: int) -> bool:
    try:
        get(port, "/healthz")
    except OSError:
        return False
    return True


def test_migrate_creates_the_schema(migrated):
    again = entrypoint(migrated, "migrate")
    assert again.returncode == 0 and "No migrations to apply" in again.stdout
    shown = entrypoint(migrated, "manage", "showmigrations", "arena")
    assert shown.returncode == 0 and "[X] 0001_initial" in shown.stdout and "[ ]" not in shown.stdout


def test_web_serves_pages_and_answers_its_health_check(migrated, service):
    with socket.socket() as held:  # bound, not listening: nobody listens on this port while it is held
        held.bind(("127.0.0.1", 0))
        nothing = {**migrated, "PORT": str(held.getsockname()[1])}
        assert healthcheck("web", nothing).returncode == 1  # nothing listens: unhealthy
    web, port = start_web(service, migrated)
    environment = {**migrated, "PORT": str(port)}
    wait_until("gunicorn to answer", lambda: answers(port), web)
    assert get(port, "/healthz") == (200, "ok")
    result = healthcheck("web", environment)
    assert result.returncode == 0 and result.stdout.strip() == "healthy", result.stderr
    status, page = get(port, "/")
    assert status == 200 and "<html" in page.lower()  # templates found, DEBUG off
    assert get(port, "/static/admin/css/base.css")[0] == 200  # WhiteNoise serves the admin's files
    assert get(port, "/healthz", host="evil.example.com")[0] == 400  # ALLOWED_HOSTS is enforced
    assert stop(web) == 0  # SIGTERM: gunicorn stops gracefully


def test_web_reports_an_unreachable_database_as_unhealthy(migrated, service):
    broken = migrated["DATABASE_URL"].rsplit("/", 1)[0] + "/no_such_database_of_the_deploy_test"
    if migrated["DATABASE_URL"].startswith("sqlite"):
        broken = "sqlite:////proc/no/such/dir/arena.sqlite3"
    web, port = start_web(service, {**migrated, "DATABASE_URL": broken})
    environment = {**migrated, "PORT": str(port), "DATABASE_URL": broken}
    wait_until("gunicorn to answer", lambda: answers(port), web)
    assert get(port, "/healthz") == (503, "database unavailable: OperationalError")
    result = healthcheck("web", environment)
    assert result.returncode == 1 and "503" in result.stderr


def test_web_can_migrate_on_start(environment, service, tmp_path):
    """MIGRATE_ON_START=true: a web container on an empty database migrates it before serving."""
    fresh = {**environment, "MIGRATE_ON_START": "true", "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}"}
    web, port = start_web(service, fresh)
    wait_until("gunicorn to answer", lambda: answers(port), web)
    assert get(port, "/tournaments/")[0] == 200  # the tables exist


def test_worker_answers_the_compose_ping(migrated, service):
    before = healthcheck("worker", migrated)
    assert before.returncode == 1 and "did not answer" in before.stderr
    worker = service(migrated, "worker")
    wait_until(
        "the worker to answer celery@HOSTNAME's ping", lambda: healthcheck("worker", migrated).returncode == 0, worker
    )
    ping = subprocess.run(
        ["celery", "-A", "league", "inspect", "ping", "--destination", f"celery@{socket.gethostname()}"],
        env={**migrated, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ping.returncode == 0 and "pong" in ping.stdout
    assert stop(worker) in (0, -signal.SIGTERM)


def queued(environment: dict[str, str]) -> int:
    """Messages waiting in the league's queues on the broker the services use (the beat's tasks go to the control
    queue, and on Redis each priority of a queue is a list of its own)."""
    broker = environment.get("CELERY_BROKER_URL", "filesystem://")
    if broker.startswith("redis://"):
        import redis

        client = redis.Redis.from_url(broker)
        return sum(client.llen(key) for key in client.keys(f"{environment['ARENA_QUEUE']}*"))
    assert broker.startswith("filesystem://"), f"no way to count messages on {broker}"
    return sum(1 for _ in (Path(environment["ARENA_DATA_DIR"]) / "broker").glob("*.msg"))


def test_beat_schedules_and_answers_its_health_check(migrated, service):
    beat = service(migrated, "beat")
    wait_until("the beat to send due tasks", lambda: queued(migrated) >= 2, beat, timeout=60)
    assert "Sending due task ladder" in beat.log.read_text()
    result = healthcheck("beat", migrated)
    assert result.returncode == 0, result.stderr
    unreachable = healthcheck("beat", {**migrated, "CELERY_BROKER_URL": "redis://127.0.0.1:1/0"})
    assert unreachable.returncode == 1 and "broker is unreachable" in unreachable.stderr
    assert stop(beat) == 0
    if migrated.get("CELERY_BROKER_URL", "").startswith("redis://"):
        import redis

        client = redis.Redis.from_url(migrated["CELERY_BROKER_URL"])
        for key in client.keys(f"{migrated['ARENA_QUEUE']}*"):
            client.delete(key)


def test_unknown_subcommands_are_refused(environment):
    result = entrypoint(environment, "serve")
    assert result.returncode == 64 and "unknown subcommand 'serve'" in result.stderr
    assert entrypoint(environment).returncode == 64
    assert entrypoint(environment, "healthcheck", "db").returncode == 64
