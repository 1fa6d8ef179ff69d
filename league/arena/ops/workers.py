"""How a Celery worker process for the league is started: shared by the demo, the benchmark and the tests."""

from __future__ import annotations

import sys


def worker_command(concurrency: int, *extra: str) -> list[str]:
    """argv for `celery -A league worker` with `concurrency` pool processes, plus `extra` options."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "league",
        "worker",
        "--concurrency",
        str(concurrency),
        "--without-mingle",
        "--without-gossip",
        "--loglevel",
        "INFO",
        *extra,
    ]


def league_queues(queue: str) -> str:
    """`--queues` for a worker doing all of a league's work whose ARENA_QUEUE is `queue` (see settings.py)."""
    return f"{queue},{queue}.validation,{queue}.test,{queue}.scrim,{queue}.control,{queue}.analysis"
