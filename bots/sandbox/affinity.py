"""Keeping a runner and its sandboxes on one CPU.

A sandboxed turn hands the CPU from the runner to the bot and back: two wake-ups, which on a virtual machine cost
far more when they cross CPUs (an interrupt to another CPU, which may have to be woken from its idle state) than
when the woken process waits on the same one. A worker process that plays one match at a time therefore keeps
itself on one CPU; bwrap and the fork server, started from it, and every harness, forked by the fork server, inherit
that CPU. Several worker processes spread over the CPUs this process may use by their index.
"""

from __future__ import annotations

import os


def pin_to_one_cpu(index: int) -> int | None:
    """Keep this process (this thread, and what it starts from now on) on one of the CPUs it may use, chosen by
    `index`; the CPU, or None where there is only one to use."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    cpu = allowed[index % len(allowed)]
    os.sched_setaffinity(0, {cpu})
    return cpu
