"""A pool process that ends leaves none of its sandboxes' folders behind (league/celery.py): it ends by os._exit,
which runs no atexit handler."""

from __future__ import annotations

from bots.sandbox import workdirs
from bots.sandbox.limits import SandboxLimits
from league import celery


def test_a_pool_process_removes_the_bot_folders_it_kept_as_it_ends(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    kept = workdirs.acquire(bot, SandboxLimits())
    workdirs.release(kept)
    assert kept.is_dir()  # kept for the upload's next sandbox
    celery.remove_the_sandbox_folders()
    assert not kept.exists()
