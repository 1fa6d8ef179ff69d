"""What several benches share: scratch PostgreSQL databases, a sandboxed league set up on one, a league worker and
its bots, a gunicorn on a socket of the bench's own, process trees (their CPU, their listening ports), the machine's
load, and the PASS/MISS verdict."""

from __future__ import annotations

import http.client
import importlib.util
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]


def verdict(ok: bool) -> str:
    """How every bench judges a goal it prints."""
    return "PASS" if ok else "MISS"


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages, as the kernel gives them."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def fresh_postgres(url: str, name: str | None = None) -> str:
    """An empty PostgreSQL database `name` (default: the one `url` names) on `url`'s server; returns its URL."""
    import psycopg

    parts = urlsplit(url)
    name = name or parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


# One key for every league process a bench starts, and for every run of it: the key seeds the matches (lib/seeds.py)
# and seals the stored games (play/seals.py), so a worker and a web server, or two runs compared game by game, that
# held different keys would not agree.
BENCH_SECRET_KEY = secrets.token_hex(32)


def as_in_production() -> dict[str, str]:
    """The environment that makes the league (and the workers a bench starts, which inherit it) run as in production.

    DEBUG is off: with it on, Django wraps every query in its debug cursor and keeps each process's last 9,000
    queries (its query log), which costs a worker time on every store and reads as some 10 MiB of growth per pool
    process before it levels off."""
    return {"DEBUG": "false", "SECRET_KEY": BENCH_SECRET_KEY}


def sandboxed_league(database_url: str, data_dir: Path, queue: str, broker_url: str, **settings: str) -> None:
    """Set Django up on a bench's own database, data folder and queue, sandboxed and as in production, and migrate.
    `settings` adds environment variables."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=database_url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_QUEUE=queue,
        ARENA_SANDBOX="1",
        CELERY_BROKER_URL=broker_url,
        LOG_LEVEL="WARNING",
        **as_in_production(),
        **settings,
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def drop_postgres(url: str) -> None:
    """Drop the database `url` names, even with connections still open to it."""
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def start_worker(
    concurrency: int, log_path: Path, *options: str, env: dict[str, str] | None = None
) -> subprocess.Popen:
    """A Celery worker with `concurrency` pool processes on all the league's queues (see ARENA_QUEUE) and these
    further `options`, with `env` over this process's environment, in its own session, logging to `log_path`;
    returns once it says it is ready (connected to its broker)."""
    from league.arena.ops.workers import league_queues, worker_command

    environment = {**os.environ, **(env or {})}
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            worker_command(concurrency, "--queues", league_queues(environment["ARENA_QUEUE"]), *options),
            cwd=ROOT,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while b" ready." not in log_path.read_bytes():
        if worker.poll() is not None or time.monotonic() > deadline:
            stop_worker(worker)
            raise SystemExit(f"the worker did not start:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.2)
    return worker


def stop_worker(worker: subprocess.Popen, finish_tasks: bool = False) -> None:
    """Stop the worker and everything in its session (sandboxes included), and reap it.

    With `finish_tasks` the worker first ends warm (SIGTERM): the tasks it runs finish, so none leaves a claim held
    behind it (a refit killed mid-fit holds its pool's refit until the lease runs out)."""
    worker.send_signal(signal.SIGTERM if finish_tasks else signal.SIGQUIT)
    try:
        worker.wait(20)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    worker.wait()


def process_stats() -> dict[int, list[str]]:
    """Every process's /proc/PID/stat fields after its command name (state, ppid, pgrp, ...; field 3 is [0])."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stats[int(entry)] = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # it ended while we looked
    return stats


def process_tree(root: int) -> dict[int, int]:
    """Every process below `root` (root included) mapped to its depth below it."""
    children: dict[int, list[int]] = {}
    for pid, fields in process_stats().items():
        children.setdefault(int(fields[1]), []).append(pid)
    depths, todo = {root: 0}, [root]
    while todo:
        current = todo.pop()
        for child in children.get(current, []):
            depths[child] = depths[current] + 1
            todo.append(child)
    return depths


def listening_ports(root: int) -> set[int]:
    """The TCP ports on which `root` or a process below it listens (IPv4 and IPv6, this network namespace).

    What a server really bound, read back from the kernel: a port chosen beforehand may have been taken by
    someone else meanwhile, and then whoever answers on it is not the server that was started."""
    sockets = set()
    for pid in process_tree(root):
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue  # it ended while we looked
        for fd in descriptors:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue  # closed while we looked (the listing's own descriptor, for one)
            if link.startswith("socket:["):
                sockets.add(int(link[8:-1]))
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[9]) in sockets:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


LOWEST_SERVER_PORT = 10000


def ephemeral_ports() -> range:
    """The ports the kernel hands to outgoing connections (and to bind on port 0)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


def unused_port() -> int:
    """A port nobody holds now, below the kernel's ephemeral range. Another process may take it before a server
    started on it binds it: check that the server got it (`listens`) and choose again if not.

    Not an ephemeral port, because a server restarted on its port must find it free: while the server is down, a
    client's outgoing connection may be given that very port, and a client retrying a connection to it may even
    connect to itself (TCP simultaneous open), holding it until the client gives up."""
    ephemeral = ephemeral_ports()
    candidates = [port for port in range(LOWEST_SERVER_PORT, 65536) if port not in ephemeral]
    for _ in range(100):
        port = secrets.choice(candidates)
        with socket.socket() as probe:
            try:
                probe.bind((LOCALHOST, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port outside the ephemeral range {ephemeral.start}-{ephemeral.stop - 1}")


def group_gone(group: int) -> bool:
    """Whether every process of process group `group` has ended (a zombie has: it holds no memory, files or
    sockets any more, only its exit status)."""
    return not any(int(fields[2]) == group and fields[0] != "Z" for fields in process_stats().values())


def listens(process: subprocess.Popen, port: int, timeout: float, ready: Callable[[], bool] = lambda: True) -> bool:
    """Wait until `process` (or a process below it) listens on `port` and `ready()` holds: True; or until it has
    exited without, its port taken by someone else first: False. Whoever else answers on the port does not count."""
    deadline = time.monotonic() + timeout
    while process.poll() is None:
        if port in listening_ports(process.pid) and ready():
            return True
        if time.monotonic() > deadline:
            raise RuntimeError(f"process {process.pid} did not listen on port {port} within {timeout:.0f} s")
        time.sleep(0.1)
    return False


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by a process, its children, and the children they have reaped (sandboxes)."""
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats = process_stats()
    for process, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(process)
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        if current in stats:
            total += sum(int(value) for value in stats[current][11:15])  # utime stime cutime cstime
        todo += children.get(current, [])
    return total / ticks


def house_participants(refs: list[str], count: int) -> list:
    """`count` ladder bots cycling over the house bots `refs`, played in the worker's own process."""
    from django.contrib.auth import get_user_model

    from bots.house import HOUSE_BOTS
    from league.arena.models import Bot, BotVersion
    from league.arena.uploads.house import house_sha256

    _check_house_refs(refs, HOUSE_BOTS)
    owner = get_user_model().objects.create(username="bench")
    bots = []
    for i in range(count):
        name = refs[i % len(refs)]
        bot = Bot.objects.create(owner=owner, name=f"{name}-{i}", house_ref=f"house:{name}")
        BotVersion.objects.create(bot=bot, number=1, sha256=house_sha256(name), kind="house", status="active")
        if hasattr(bot, "refresh_active_version"):  # where the bot row keeps its ladder version (main)
            bot.refresh_active_version()
        bots.append(bot)
    return bots


def uploaded_participants(refs: list[str], count: int) -> list:
    """`count` bots whose versions are uploads of the house bots' source files, queued for validation."""
    from django.contrib.auth import get_user_model

    from bots.house import HOUSE_BOTS, house_module
    from league.arena.models import Bot
    from league.arena.uploads.intake import UploadRejected, add_version, inspect_upload

    _check_house_refs(refs, HOUSE_BOTS)
    owner = get_user_model().objects.create(username="bench")
    bots = []
    for i in range(count):
        name = refs[i % len(refs)]
        source = Path(importlib.util.find_spec(house_module(name)).origin)
        bot = Bot.objects.create(owner=owner, name=f"{name}-{i}")
        try:
            add_version(bot, inspect_upload(f"{name}.py", source.read_bytes()))
        except UploadRejected as error:
            raise SystemExit(f"the house bot {name} cannot be uploaded: {error}") from None
        bots.append(bot)
    return bots


def _check_house_refs(refs: list[str], known) -> None:
    unknown = [ref for ref in refs if ref not in known]
    if unknown:
        raise SystemExit(f"unknown house bots: {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def await_validation(bots: list, worker: subprocess.Popen, log_path: Path, timeout: float) -> None:
    """Wait until every uploaded version has passed its validation games (played by `worker`)."""
    from league.arena.models import BotVersion

    versions = BotVersion.objects.filter(bot__in=bots)
    deadline = time.monotonic() + timeout
    while versions.filter(status=BotVersion.Status.VALIDATING).exists():
        if worker.poll() is not None:
            raise SystemExit(f"the worker died:\n{log_path.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise SystemExit(f"uploads not validated after {timeout} s")
        time.sleep(0.1)
    failed = versions.filter(status=BotVersion.Status.FAILED).first()
    if failed is not None:
        raise SystemExit(f"the upload {failed.bot.name} failed validation: {failed.failure_reason}")


@dataclass(frozen=True)
class Served:
    """A running gunicorn and the port it serves."""

    process: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://{LOCALHOST}:{self.port}"


LOCALHOST = "127.0.0.1"


@contextmanager
def gunicorn(env: dict[str, str], port: int = 0, workers: int = 2, log_path: Path | None = None) -> Iterator[Served]:
    """A gunicorn serving the league (`league.wsgi`, DEBUG and the rest from `env`) on 127.0.0.1:port (0: any free
    port) until the block ends; it answers once the block starts.

    The bench binds the listening socket and hands it to gunicorn (`fd://`): the port reported is the one served,
    and no other process can take it between a choice and a bind."""
    listener = socket.create_server((LOCALHOST, port), backlog=2048)
    command = [
        sys.executable, "-m", "gunicorn", "league.wsgi:application", "--workers", str(workers),
        "--bind", f"fd://{listener.fileno()}", "--timeout", "120", "--log-level", "warning",
    ]  # fmt: skip
    with listener:
        log = open(log_path, "ab") if log_path else subprocess.DEVNULL
        try:
            server = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=[listener.fileno()],
            )
        finally:
            if log_path:
                log.close()
        served = Served(server, listener.getsockname()[1])
    try:
        _await_answer(served)
        yield served
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _await_answer(served: Served, timeout: float = 60.0) -> None:
    """Until gunicorn answers GET / with anything but a server error (its workers booted, the database reached)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with code {served.process.returncode}; see its log")
        connection = http.client.HTTPConnection(LOCALHOST, served.port, timeout=5)
        try:
            connection.request("GET", "/", headers={"Host": LOCALHOST})
            if connection.getresponse().status < 500:
                return
        except OSError:
            pass
        finally:
            connection.close()
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer on port {served.port} within {timeout:.0f} s")
