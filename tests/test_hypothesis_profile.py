"""Property tests catch the same things every run under CI and tests/run.sh, and new things locally.

tests/conftest.py picks the Hypothesis profile; here a small property test runs under it in fresh pytest processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROPERTY = """
import json, os
from hypothesis import given, strategies as st

DRAWN = []

@given(st.binary(min_size=8, max_size=8))
def test_draw(value):
    DRAWN.append(value.hex())

def test_write_what_was_drawn():
    with open(os.environ["DRAWN_TO"], "w") as out:
        json.dump(DRAWN, out)
"""


def drawn(tmp_path: Path, run: str, **environment: str) -> list[str]:
    """The examples the property test drew in one pytest process with the suite's conftest as a plugin."""
    (tmp_path / "test_property.py").write_text(PROPERTY)
    out = tmp_path / f"{run}.json"
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "HYPOTHESIS_PROFILE")}
    # only the suite's conftest as a plugin: the installed ones (Django's, the browser's) take seconds to load
    env.update(environment, DRAWN_TO=str(out), PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull, "-p", "tests.conftest",
         "test_property.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


@pytest.mark.slow
def test_ci_draws_the_same_examples_every_run_and_local_runs_draw_new_ones(tmp_path):
    first = drawn(tmp_path, "ci-1", CI="true")
    assert len(first) > 10
    assert drawn(tmp_path, "ci-2", CI="true") == first
    assert drawn(tmp_path, "run-sh", HYPOTHESIS_PROFILE="ci") == first
    assert drawn(tmp_path, "local") != first
    assert drawn(tmp_path, "chosen", CI="true", HYPOTHESIS_PROFILE="dev") != first


def test_run_sh_runs_the_suite_under_the_ci_profile():
    script = (ROOT / "tests" / "run.sh").read_text()
    assert 'export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"' in script
    assert script.index("HYPOTHESIS_PROFILE") < script.index("-m pytest")
