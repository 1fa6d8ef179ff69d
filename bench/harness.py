"""What several benches share: scratch PostgreSQL databases, a league worker, its bots, its CPU, the machine's load."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import time
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

    queue = os.environ["ARENA_QUEUE"]
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            worker_command(concurrency, "--queues", league_queues(queue), *options),
            cwd=ROOT,
            env={**os.environ, **(env or {})},
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


def stop_worker(worker: subprocess.Popen) -> None:
    """Stop the worker and everything in its session (sandboxes included), and reap it."""
    worker.send_signal(signal.SIGQUIT)
    try:
        worker.wait(20)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    worker.wait()


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by a process, its children, and the children they have reaped (sandboxes)."""
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry)] = fields
            children.setdefault(int(fields[1]), []).append(int(entry))
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
    from league.arena.uploads import UploadRejected, add_version, inspect_upload

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
