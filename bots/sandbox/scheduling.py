"""How the kernel schedules a runner and its sandboxes: on one CPU together, and without preempting each other.

A sandboxed turn hands the CPU from the runner to the bot and back: two wake-ups, which on a virtual machine cost
far more when they cross CPUs (an interrupt to another CPU, which may have to be woken from its idle state) than
when the woken process waits on the same one. A worker process that plays one match at a time therefore may keep
itself on one CPU; bwrap and the fork server, started from it, and every harness, forked by the fork server, inherit
that CPU. Several worker processes spread over the CPUs this process may use by their index.

On one CPU, the bot's reply wakes the runner a few microseconds before the bot stops itself (harness.py). A runner
of the default policy would take the CPU at once, find the bot not yet stopped, and hand the CPU back for it to
stop: four switches a turn instead of two. The runner therefore runs under SCHED_BATCH, whose tasks never preempt
the one running when they wake: it goes on once the bot has stopped. The fork server and the harnesses it starts
inherit the policy, so a bot continued by the runner does not preempt it either before it has gone back to waiting.
SCHED_BATCH is still fair time sharing (a runner whose bot spins past its deadline gets the CPU within a time
slice), only without wake-up preemption; and it needs no privilege.
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


def wait_without_preempting() -> None:
    """Put this thread (and what it starts from now on) under SCHED_BATCH, if it runs under the default policy: woken
    by a bot's reply, it waits for the bot to stop instead of preempting it. Idempotent; other policies are kept."""
    if os.sched_getscheduler(0) == os.SCHED_OTHER:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
