"""Rating refits: every rated result of a rating pool (ladder/pools.py) fitted at once from its pair counts.

A refit reads the pool's pairs (O(pairs), never O(games); only those changed since this process's last refit of the
pool: ladder/kept_pairs.py), fits them with `league.arena.ladder.bradley_terry`, and
rewrites the pool's ratings. The fit depends only on the counts, so the ratings are exact and independent of the order
in which matches were stored: a refit from scratch gives the same numbers.

Refits are coalesced per pool through its `RatingFit` row (keyed by the pool's key):

- `request(pool)` (after a rated match commits) sets `pending`; the request that sets it (not those that find it set
  already) queues a refit `FIRST_WAIT` seconds later, unless one holds a live claim. Matches stored meanwhile ride
  on that one refit.
- `run(pool)` claims the row with a conditional UPDATE (only while `pending` is set; a claim whose holder stopped
  refreshing it for `LEASE` is taken over), clears `pending`, fits and stores, and releases the claim; if `pending`
  was set again meanwhile (matches arrived during the fit) it queues one more refit, covering them all, a window
  after this one began (`next_countdown`; three fits' time, at most `WINDOW`): those matches have waited out the fit
  already, so after a fit longer than the window the next one starts at once, in the same task and under the same
  claim (for up to `TASK_SECONDS`). While matches stream in, a ladder is
  thus refitted about once a window, and one whose fits take longer back to back; a match's ratings trail it by at
  most about a window and a fit.
  (Waiting less, so that fits of half a window ran back to back, cut that by a few tenths of a second, but under a
  flood of matches it tripled the fits, and their CPU slowed the storing of the matches themselves.)

No request is lost between a refit finishing and a new match arriving: a request that finds a live claim leaves the
refit to the claimant, which looks at `pending` after its release; one that comes after the release finds no claim
and queues the refit itself (at worst both queue one, and the second finds nothing pending).
Ratings are stored only while the claim is held, so a refit that was presumed dead never overwrites a newer fit.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

from league.arena import queue
from league.arena.ladder import bradley_terry, kept_pairs, refit_sql, vacuuming
from league.arena.ladder.pools import RatingPool
from league.arena.lib import claimants, heartbeats, retrying, signals
from league.arena.models import Match, RatingFit
from league.arena.play import events, results

log = logging.getLogger(__name__)

ANCHOR = 1500.0
# A refit's heartbeat comes every second (league.arena.lib.heartbeats): silent this long, it is dead.
LEASE = timedelta(seconds=5)
# While matches stream in, a ladder is refitted once a window: FITS_PER_WINDOW fits' time, but at most WINDOW seconds
# (back to back if fits take longer). Fits shorter than a third of WINDOW thus take about a third of a core (longer
# ones more), and a match's ratings trail it by about a window and a fit: at 1,000 bots (fits of ~0.15 s) a fixed
# second of window kept ratings 0.65 s behind (p50) where back-to-back fits had kept them 0.5 s, while at 10,000 bots
# (~0.5 s fits) the window stays a second.
WINDOW = 1.0
FITS_PER_WINDOW = 3.0
# A refit whose intervals took this long the last time shows its Elos first (`store_elos`), then its intervals: at
# 10,000 bots Newton's method takes ~0.15 s and the intervals ~0.5 s. Below it, one write is cheaper than two.
ELOS_FIRST_AFTER = 0.15
# Such a refit leaves its intervals to the next refit if matches arrived meanwhile (that refit comes a window later),
# unless the intervals stored are this old: while matches stream in, the Elos follow them a window and a Newton fit
# behind, and the intervals (shifted with their Elos meanwhile) are recomputed every few seconds.
INTERVALS_AT_MOST = 3.0  # seconds
# The refit asked for by a match when none is asked for waits this long: the matches stored meanwhile ride on it.
FIRST_WAIT = 0.25
# A refit task goes on with the next fit itself, not through the broker (a tenth of a second or two), while fits are
# longer than the window and matches keep coming; for at most this long, then it queues the next.
TASK_SECONDS = 30.0
# A refit sent this long past its countdown and still not claimed was lost (the broker restarted empty, say).
SENT_GRACE = timedelta(seconds=2)


# The Elos of each pool's last fit stored by this process: where its next fit starts. Newton's method then takes one
# step after a few more games. The stored ratings are a poorer start: a version that no longer plays keeps its last
# rating while the fit moves it as a free player, and half the versions of a large league are such (5 steps, not 1).
_last_fits: dict[str, dict[int, float]] = {}


# How long each pool's intervals took in this process's last refit of it (`ELOS_FIRST_AFTER`), and when (monotonic
# clock) they were stored (`INTERVALS_AT_MOST`).
_intervals_took: dict[str, float] = {}
_intervals_stored_at: dict[str, float] = {}
# Each pool's last whole fit stored by this process: its variance check's solves are where the next one's start.
_last_intervals: dict[str, bradley_terry.Fit] = {}


class _ClaimLost(Exception):
    """The refit's claim was taken over while it stored: roll its ratings back."""


@dataclass(frozen=True)
class GameCounts:
    """Rated results per pair of versions (row k: players[a[k]] against players[b[k]]): the input of a fit."""

    players: list[int]
    a: np.ndarray
    b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    draws: np.ndarray
    total: int
    last_played_us: np.ndarray  # per player: its latest rated game, microseconds since 1970


def pair_counts(pool: RatingPool) -> tuple[GameCounts, dict[int, datetime]]:
    """The pair counts of `pool`, and when each version last played a rated game in it."""
    table = kept_pairs.read(pool.pairs())
    return counts_of(table), table.last_played


def read_counts(pool: RatingPool) -> GameCounts:
    """The pair counts of `pool` (what a refit reads)."""
    return counts_of(kept_pairs.read(pool.pairs()))


def counts_of(table: refit_sql.PairTable) -> GameCounts:
    """A fit's input from the pair rows."""
    return GameCounts(
        players=table.versions.tolist(),
        a=table.index[:, 0],
        b=table.index[:, 1],
        wins_a=table.rows[:, 2],
        wins_b=table.rows[:, 3],
        draws=table.rows[:, 4],
        total=int(table.rows[:, 2:].sum()),
        last_played_us=table.latest_us,
    )


def locate(counts: GameCounts, start: dict[int, float] | None = None) -> bradley_terry.Strengths:
    """`whole_fit` up to the Elos; its `with_intervals()` is the whole fit."""
    return bradley_terry.strengths(
        counts.players,
        counts.a,
        counts.b,
        wins_a=counts.wins_a,
        wins_b=counts.wins_b,
        draws=counts.draws,
        prior_games=settings.ARENA_RATING_PRIOR_GAMES,
        anchor=ANCHOR,
        start=start,
    )


def fit(counts: GameCounts, start: dict[int, float] | None = None) -> dict[int, bradley_terry.Rating]:
    """The ratings fitted on `counts`; `start` (the stored Elos) only makes the fit converge in fewer steps."""
    return whole_fit(counts, start).ratings


def whole_fit(counts: GameCounts, start: dict[int, float] | None = None) -> bradley_terry.Fit:
    """`fit` as arrays (bradley_terry.Fit), which a refit writes without a Python object per version."""
    return locate(counts, start).with_intervals()


def _state(pool: RatingPool) -> RatingFit:
    state, _ = RatingFit.objects.get_or_create(game=pool.key)
    return state


def _live_claim() -> Q:
    return Q(claim_token__isnull=False, claimed_at__gte=timezone.now() - LEASE)


def request(pool: RatingPool) -> None:
    """Ask for a refit of `pool` covering everything committed so far, within about FIRST_WAIT seconds."""
    # Under a stream of matches most requests find `pending` set already: they write nothing and send nothing (the
    # refit asked for by the request that set it covers theirs too, as it clears `pending` before it reads the
    # pairs), in one read. Only a row not yet pending is written (and locked).
    if RatingFit.objects.filter(game=pool.key, pending=True).exists():
        return
    if not RatingFit.objects.filter(game=pool.key, pending=False).update(pending=True):
        _state(pool)
        if not RatingFit.objects.filter(game=pool.key, pending=False).update(pending=True):
            return
    if not RatingFit.objects.filter(_live_claim(), game=pool.key).exists():
        _send(pool.key, countdown=FIRST_WAIT)


def claim(pool: RatingPool, worker: str = "") -> uuid.UUID | None:
    """Take the pool's refit for `worker` (node:pid, by default this process) if one is asked for and nobody live
    holds it; None otherwise."""
    token = uuid.uuid4()
    taken = (
        RatingFit.objects.filter(game=pool.key, pending=True)
        .exclude(_live_claim())
        .update(
            claim_token=token,
            claimed_at=timezone.now(),
            claimed_by=(worker or f"{socket.gethostname()}:{os.getpid()}")[:200],
            refit_due_at=None,  # the refit sent arrived
        )
    )
    return token if taken else None


def run(pool: RatingPool, worker: str = "") -> int:
    """Refit `pool` while refits are asked for, as `worker` (see `claim`); returns how many fits this call stored."""
    token = claim(pool, worker)
    if token is None:
        return 0
    stored, task_began = 0, time.monotonic()
    state = RatingFit.objects.filter(game=pool.key, claim_token=token)

    def beat() -> bool:
        return bool(state.update(claimed_at=timezone.now()))

    try:
        with heartbeats.Heartbeat(beat, f"refit of {pool}"):
            # Clearing `pending` first: a match committed after this point sets it again and gets one more fit.
            while state.update(pending=False, claimed_at=timezone.now()):
                began = time.monotonic()
                if not _fit_and_store(pool, token, read_counts(pool)):
                    break
                stored += 1
                countdown = next_countdown(time.monotonic() - began)
                if not countdown and time.monotonic() - task_began < TASK_SECONDS and _pending(pool):
                    continue  # stored during a fit longer than the window: the next fit at once, under this claim
                if state.update(claim_token=None, claimed_at=None):
                    if _pending(pool):  # stored during the fit
                        _send(pool.key, countdown=countdown)
                    vacuuming.vacuum_if_due()
                    return stored
                break
    except retrying.TRANSIENT as error:
        # Hand the claim back as soon as the database answers, so the task's retry takes it at once.
        retrying.call(lambda: _release(pool, token), f"refit of {pool}: handing its claim back")
        log.warning("refit of %s: %s; asked for again", pool, retrying.what_failed(error))
        raise
    log.warning("refit of %s: the claim was taken over (this refit was presumed dead); its fit is dropped", pool)
    return stored


def _fit_and_store(pool: RatingPool, token: uuid.UUID, counts: GameCounts) -> bool:
    """Fit `counts` and store the ratings; where the intervals were slow the last time, the Elos first, and the
    intervals only if they can wait no longer (`INTERVALS_AT_MOST`) or no match arrived meanwhile. False if the claim
    was lost on the way."""
    located = locate(counts, _last_fits.get(pool.key) or pool.stored_elos())
    if _intervals_took.get(pool.key, 0.0) >= ELOS_FIRST_AFTER:
        if not store_elos(pool, token, counts, located):
            return False
        _last_fits[pool.key] = dict(zip(located.players, located.elo.tolist(), strict=True))
        if _intervals_can_wait(pool):
            return True
    began = time.monotonic()
    fitted = located.with_intervals(_last_intervals.get(pool.key))
    _intervals_took[pool.key] = time.monotonic() - began
    if not store(pool, token, counts, fitted):
        return False
    _last_fits[pool.key] = dict(zip(fitted.players, fitted.elo.tolist(), strict=True))
    _last_intervals[pool.key] = fitted
    _intervals_stored_at[pool.key] = time.monotonic()
    return True


def _intervals_can_wait(pool: RatingPool) -> bool:
    """Whether a match arrived during this refit (the next refit covers it, and can compute the intervals) while the
    intervals stored are recent."""
    recent = time.monotonic() - _intervals_stored_at.get(pool.key, -math.inf) < INTERVALS_AT_MOST
    return recent and _pending(pool)


def _pending(pool: RatingPool) -> bool:
    return RatingFit.objects.filter(game=pool.key, pending=True).exists()


def forget_last_fits() -> None:
    """Start every pool's next fit in this process afresh: from its stored ratings, intervals included."""
    _last_fits.clear()
    _intervals_took.clear()
    _intervals_stored_at.clear()
    _last_intervals.clear()


def next_countdown(took: float) -> float:
    """How long the refit asked for during a fit that `took` seconds waits: the rest of a window (`window`) from that
    fit's start (none after a fit longer than the window)."""
    return round(max(0.0, window(took) - took), 3)


def window(took: float) -> float:
    """The time from one refit's start to the next while matches stream in, after a fit that `took` seconds."""
    return min(WINDOW, FITS_PER_WINDOW * took)


def _release(pool: RatingPool, token: uuid.UUID) -> None:
    RatingFit.objects.filter(game=pool.key, claim_token=token).update(claim_token=None, claimed_at=None, pending=True)


def refit(pool: RatingPool) -> bool:
    """Refit `pool` now, in this process; False if another live refit holds the claim (it then covers this)."""
    _state(pool)
    RatingFit.objects.filter(game=pool.key).update(pending=True)
    return run(pool) > 0


def store(
    pool: RatingPool,
    token: uuid.UUID,
    counts: GameCounts,
    fitted: bradley_terry.Fit,
) -> bool:
    """Rewrite the pool's ratings from one fit, only while `token` holds the claim; False if it does not."""
    now = timezone.now()
    return _write_under_claim(pool, token, counts, lambda: pool.write(fitted, counts.last_played_us, now), now)


def store_elos(pool: RatingPool, token: uuid.UUID, counts: GameCounts, located: bradley_terry.Strengths) -> bool:
    """Show the pool's new Elos before their intervals are computed (`RatingPool.write_elos`), only while `token`
    holds the claim; False if it does not."""
    return _write_under_claim(pool, token, counts, lambda: pool.write_elos(located, counts.last_played_us))


def _write_under_claim(
    pool: RatingPool, token: uuid.UUID, counts: GameCounts, write: Callable[[], None], now: datetime | None = None
) -> bool:
    """`write` the pool's ratings of `counts` and stamp its state, in one transaction and only while `token` holds
    the claim (rolled back otherwise: False); the leaderboard hears of it once it commits."""
    try:
        with transaction.atomic():
            write()
            # Checked last, so the state row is locked only for the commit, never while the ratings are written.
            stamped = RatingFit.objects.filter(game=pool.key, claim_token=token).update(
                games=counts.total, fitted_at=now or timezone.now()
            )
            if not stamped:
                raise _ClaimLost
            signals.send_leaderboard_changed(pool.game)
    except _ClaimLost:
        return False
    return True


def hand_back_dead_here(worker: str) -> int:
    """Release the refit claims held by processes of this very worker (same node) that are gone, and queue their
    refits at once: a killed worker started again need not leave its ladders' ratings stale for a lease."""
    node = worker.rpartition(":")[0]
    handed = 0
    held = RatingFit.objects.filter(claim_token__isnull=False, claimed_by__startswith=f"{node}:")
    for key, token, claimant in held.values_list("game", "claim_token", "claimed_by"):
        if claimants.gone_here(claimant, worker):
            with transaction.atomic():
                if RatingFit.objects.filter(game=key, claim_token=token).update(
                    claim_token=None, claimed_at=None, pending=True
                ):
                    _send(key)
                    handed += 1
                    log.warning("refit of %s: its process %s is gone (killed?); refit queued again", key, claimant)
    return handed


def _send(key: str, countdown: float | None = None) -> None:
    """Queue the refit of the pool `key`, noting when it is due (`resume_stale` tells a lost one by that)."""
    due = timezone.now() + timedelta(seconds=countdown or 0)
    RatingFit.objects.filter(game=key).update(refit_due_at=due)
    queue.refit_ratings(key, countdown=countdown)


def resume_stale(broker_lost: bool = False) -> int:
    """Queue a refit for each pool whose refit was asked for but whose claimant died or whose message was lost.

    A refit sent less than SENT_GRACE past its due time is most likely on its way (a worker holds it for its
    countdown, or is about to take it): it is left alone, unless the broker started empty since (`broker_lost`,
    `queue.broker_restarted_at`): then it is sent again at once, or at its due time if that is still to come.
    """
    now = timezone.now()
    # A refit that died had cleared `pending` before it read the pairs: it may have stored nothing of them, or only its
    # Elos (`store_elos`), not their intervals. What it read is asked for again.
    RatingFit.objects.filter(pending=False, claim_token__isnull=False).exclude(_live_claim()).update(pending=True)
    stale = RatingFit.objects.filter(pending=True).exclude(_live_claim())
    if not broker_lost:
        stale = stale.exclude(refit_due_at__gte=now - SENT_GRACE)
    keys = list(stale.values_list("game", "refit_due_at"))
    for key, due in keys:
        _send(key, countdown=(due - now).total_seconds() if broker_lost and due and due > now else None)
    return len(keys)


@receiver(events.match_stored)
def _refit_after(sender: object, match: Match, **kwargs: object) -> None:
    if results.counts_for_pairs(match):
        transaction.on_commit(lambda: request(RatingPool.ladder(match.game)))
