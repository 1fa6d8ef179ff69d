"""A pool process loads the rating maths in the background as it starts, not on its first refit."""

from __future__ import annotations

import subprocess
import sys


def test_a_starting_pool_process_imports_the_rating_maths():
    # In a fresh interpreter: this one may have imported them already.
    code = (
        "import os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'league.settings');"
        "import django; django.setup(); import league.celery as c;"
        "assert c.RATING_MATHS not in sys.modules;"
        "c.import_the_rating_maths().join(60);"
        "assert c.RATING_MATHS in sys.modules and 'scipy.sparse.linalg' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
