"""Who holds a claim (a match's, a refit's): `node:pid`, the Celery node and the process's pid.

A process of this very node (the same Celery worker name) can tell for certain that another process of the node is
gone, a pool process killed, say, or the worker's processes before a restart: that claim need not wait out its lease.
A worker of another node cannot (the pid means nothing there): only the lease tells it.
"""

from __future__ import annotations

import os


def gone_here(claimant: str, worker: str) -> bool:
    """Whether `claimant` is a process of `worker`'s node, other than this one, that no longer exists."""
    node, _, pid = claimant.rpartition(":")
    if not node or node != worker.rpartition(":")[0] or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        pass  # alive under another uid, or not ours to ask about
    return False
