"""What the whole suite shares: the Hypothesis profile.

CI runs every property test on the same examples each time (`ci`: derandomised, no example database), so a
failure there is a failure of the change, not of the draw, and a rerun reproduces it. Locally the examples are
drawn afresh each run (`dev`, Hypothesis's default), which keeps finding new cases; a failure prints the blob
that replays it (`@reproduce_failure`). The profile is `ci` when the environment says CI=true (as CI services
set it) or when tests/run.sh runs the suite; HYPOTHESIS_PROFILE=ci|dev chooses it outright.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

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
