"""The Celery app: `celery -A league worker` plays matches, `celery -A league beat` runs the clock."""

from __future__ import annotations

import importlib
import logging
import os
import threading

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready, worker_shutdown
from kombu.transport import TRANSPORT_ALIASES

from league.arena.ops import filesystem_broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
# A worker skips Django's system checks at start (a quarter of its start-up CPU, about 1 s at load 5): `manage.py
# migrate` runs them at every deploy, and a worker restarted after a crash is a worker the league waits for.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

# kombu's own filesystem transport lets a worker read a message before it is written, and the worker then stops
TRANSPORT_ALIASES[filesystem_broker.ALIAS] = f"{filesystem_broker.__name__}:Transport"

app = Celery("league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def keep_the_pool_process_on_one_cpu(**_: object) -> None:
    """Each pool process plays its matches on one CPU, its sandboxes with it (bots/sandbox/scheduling.py)."""
    from billiard.process import current_process
    from django.conf import settings

    from bots.sandbox.scheduling import pin_to_one_cpu

    if settings.ARENA_WORKER_ONE_CPU:
        cpu = pin_to_one_cpu(getattr(current_process(), "index", 0) or 0)
        if cpu is not None:
            logging.getLogger(__name__).info("pool process %d plays on CPU %d", os.getpid(), cpu)


@worker_ready.connect
def warn_where_cgroup_moves_wait(**_: object) -> bool:
    """Log, once a worker is up, when each bot start will wait for an RCU grace period to enter its cgroups (no cgroup
    mount has favordynmods: docs/operators.md); whether it warned."""
    from bots.sandbox import cgroups

    if not cgroups.available() or cgroups.favors_moves():
        return False
    logging.getLogger(__name__).warning(cgroups.SLOW_MOVES)
    return True


# What a refit imports on first use (scipy's sparse solvers, ~0.2 s): a pool process loads it in the background as it
# starts, so that the first refit after a worker restarts is not the slowest (at 1,000 bots it was 0.53 s, against
# ~0.15 s for the next ones, and it alone set the worst lag of ratings behind matches).
RATING_MATHS = "league.arena.ladder.bradley_terry.newton"


@worker_process_init.connect
def import_the_rating_maths(**_: object) -> threading.Thread:
    loading = threading.Thread(target=importlib.import_module, args=(RATING_MATHS,), name="import-rating-maths")
    loading.daemon = True
    loading.start()
    return loading


@worker_process_shutdown.connect
@worker_shutdown.connect
def remove_the_sandbox_folders(**_: object) -> None:
    """End the sandboxes this process kept for its next matches (and their cgroups), stop its fork servers and remove
    their folders (thegame-zygote-* in /dev/shm), and the bots' folders it kept (thegame-sandbox-*): a pool process
    ends by os._exit, which runs no atexit handler, so without this they stayed until the next start found them."""
    from bots.sandbox import forkserver, pool, workdirs

    pool.clear()
    forkserver.stop_all()
    workdirs.remove_all()
