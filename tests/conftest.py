"""What the whole suite shares: the Hypothesis profile, one Redis database per parallel test process, and no sandbox
kept from one test for the next.

CI runs every property test on the same examples each time (`ci`: derandomised, no example database), so a
failure there is a failure of the change, not of the draw, and a rerun reproduces it. Locally the examples are
drawn afresh each run (`dev`, Hypothesis's default), which keeps finding new cases; a failure prints the blob
that replays it (`@reproduce_failure`). The profile is `ci` when the environment says CI=true (as CI services
set it) or when tests/run.sh runs the suite; HYPOTHESIS_PROFILE=ci|dev chooses it outright.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping

import pytest
from django.conf import settings as django_settings
from hypothesis import settings

# Both from Hypothesis's own defaults: on a machine that says CI, Hypothesis has already loaded its own
# (derandomised) profile, which a profile registered now would otherwise inherit.
DEFAULTS = settings.get_profile("default")
# No deadline in CI: how long an example takes on a shared machine is not a property of the code.
settings.register_profile("ci", parent=DEFAULTS, derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", parent=DEFAULTS, print_blob=True)


def hypothesis_profile(environ: Mapping[str, str]) -> str:
    """The profile the environment asks for: HYPOTHESIS_PROFILE, else `ci` under CI, else `dev`."""
    chosen = environ.get("HYPOTHESIS_PROFILE", "").strip()
    if chosen:
        return chosen
    return "ci" if environ.get("CI", "").strip().lower() in ("true", "1", "yes") else "dev"


settings.load_profile(hypothesis_profile(os.environ))


def broker_for_test_process(url: str, worker: str) -> str:
    """The broker URL one pytest-xdist process uses (gw0, gw1, ...): the next Redis databases after the given one,
    so that a Celery worker started by one process's test never takes the tasks another process's test queued."""
    found = re.fullmatch(r"(redis://[^/]+)(?:/(\d+))?", url)
    if not found or not worker.startswith("gw"):
        return url
    return f"{found[1]}/{int(found[2] or 0) + 1 + int(worker[2:])}"


_BROKER = broker_for_test_process(os.environ.get("CELERY_BROKER_URL", ""), os.environ.get("PYTEST_XDIST_WORKER", ""))
if _BROKER:
    # Celery reads the variable over the settings, as do the workers and servers the tests start; pytest-django has
    # already loaded the settings, so they are told too.
    os.environ["CELERY_BROKER_URL"] = _BROKER
    if django_settings.configured:
        django_settings.CELERY_BROKER_URL = _BROKER


@pytest.fixture(autouse=True)
def no_kept_sandboxes() -> Iterator[None]:
    """A test whose matches keep their sandboxes (as the league's do: bots/sandbox/pool.py) ends them: a later test of
    the same process that counts processes or descriptors must not find them."""
    yield
    pool = sys.modules.get("bots.sandbox.pool")
    if pool is not None:
        pool.clear()
