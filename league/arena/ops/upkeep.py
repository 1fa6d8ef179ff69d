"""The upkeep: everything a lost task would have done, re-derived from the database every ARENA_SWEEP_INTERVAL.

Tasks are sent when a transaction commits; a message can still be lost (the broker restarted empty, a worker
killed holding it, the broker down at the moment of sending). The database says what should happen next, so a
periodic check finds it and does it again; every step is idempotent and cheap when there is nothing to do.
"""

from __future__ import annotations

import logging

from league.arena import queue
from league.arena.analysis import runs as analyses
from league.arena.ladder import refits
from league.arena.notifications import delivery as notices
from league.arena.ops import tallies
from league.arena.play import matches
from league.arena.tournaments import starting as tournaments
from league.arena.uploads import validation as validations

log = logging.getLogger(__name__)


def run() -> dict[str, int]:
    """Redo what lost tasks left undone; how many of each were found."""
    broker_started = queue.broker_restarted_at()  # Redis restarted empty: what was sent before is sent again now
    done = {
        "matches re-sent": matches.requeue_lost(broker_started),  # worker dead (heartbeat stopped) or message lost
        "tournaments finished": tournaments.finish_all_done(),  # its finish_tournament task was lost
        "refits resumed": refits.resume_stale(broker_lost=broker_started is not None),  # nobody holds a live claim
        "validations released": validations.release_all(),  # waiting behind a lost validation_finished
        "notification e-mails re-sent": notices.resend_lost(),  # asked for an hour ago, neither sent nor given up
        "analyses re-sent": analyses.resend_lost(),  # worker dead (heartbeat stopped) or message lost
    }
    tallies.compact()  # not a lost task's work: folds the match tallies, so that /metrics/ reads a few rows
    if any(done.values()):
        log.info("upkeep: %s", ", ".join(f"{count} {what}" for what, count in done.items() if count))
    return done
