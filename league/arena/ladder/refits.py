"""Rating refits: every rated game of a game (ladder and tournament alike) fitted at once from the pair counts.

A refit reads `PairResult` (O(pairs), never O(games)), fits it with `league.arena.ladder.bradley_terry`, and rewrites
the game's `Rating` rows. The fit depends only on the counts, so the ratings are exact and independent of the order in
which matches were stored: a refit from scratch gives the same numbers.

Refits are coalesced per game through its `RatingFit` row:

- `request(game)` (after a rated match commits) sets `pending` and queues a refit unless one holds a live claim.
- `run(game)` claims the row with a conditional UPDATE (only while `pending` is set; a claim whose holder stopped
  refreshing it for `LEASE` is taken over), clears `pending`, fits and stores, then releases the claim only if
  `pending` is still clear; otherwise matches arrived meanwhile and it fits once more, covering all of them.

No request is lost between a refit finishing and a new match arriving: the release and `request`'s UPDATE touch the
same row, so either the release sees `pending` set (and loops) or `request` sees no claim (and queues a refit).
Ratings are stored only while the claim is held, so a refit that was presumed dead never overwrites a newer fit.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

from league.arena import queue
from league.arena.coop import ratings as coop_ratings
from league.arena.ladder import bradley_terry, history, refit_sql
from league.arena.lib import heartbeats, retrying, signals
from league.arena.models import Match, PairResult, Rating, RatingFit, RatingPoint
from league.arena.play import events, results

log = logging.getLogger(__name__)

ANCHOR = 1500.0
LEASE = timedelta(
    seconds=5
)  # a refit's heartbeat comes every second (league.arena.lib.heartbeats): silent this long, dead


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


def pair_counts(game: str) -> tuple[GameCounts, dict[int, datetime]]:
    """The pair counts of `game` (or of a co-op ladder's key), and when each version last played a rated game."""
    pairs = coop_ratings.pairs(game) if coop_ratings.is_key(game) else PairResult.objects.filter(game=game)
    table = refit_sql.read_pairs(pairs)
    players, index = np.unique(table.rows[:, :2], return_inverse=True)
    index = index.reshape(-1, 2)
    counts = GameCounts(
        players=[int(player) for player in players],
        a=index[:, 0],
        b=index[:, 1],
        wins_a=table.rows[:, 2],
        wins_b=table.rows[:, 3],
        draws=table.rows[:, 4],
        total=int(table.rows[:, 2:].sum()),
    )
    return counts, table.last_played


def fit(counts: GameCounts, start: dict[int, float] | None = None) -> dict[int, bradley_terry.Rating]:
    """The ratings fitted on `counts`; `start` (the stored Elos) only makes the fit converge in fewer steps."""
    return bradley_terry.fit_counts(
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


def stored_elos(game: str) -> dict[int, float]:
    if coop_ratings.is_key(game):
        return coop_ratings.stored_elos(game)
    return dict(Rating.objects.filter(game=game).values_list("version_id", "elo"))


def _state(game: str) -> RatingFit:
    state, _ = RatingFit.objects.get_or_create(game=game)
    return state


def _live_claim() -> Q:
    return Q(claim_token__isnull=False, claimed_at__gte=timezone.now() - LEASE)


def request(game: str) -> None:
    """Ask for a refit of `game` covering everything committed so far."""
    # Only a row not yet pending is written (and locked): under a stream of matches most requests write nothing.
    if not RatingFit.objects.filter(game=game, pending=False).update(pending=True):
        _state(game)
        RatingFit.objects.filter(game=game, pending=False).update(pending=True)
    if not RatingFit.objects.filter(_live_claim(), game=game).exists():
        queue.refit_ratings(game)


def claim(game: str) -> uuid.UUID | None:
    """Take the game's refit if one is asked for and nobody live holds it; None otherwise."""
    token = uuid.uuid4()
    taken = (
        RatingFit.objects.filter(game=game, pending=True)
        .exclude(_live_claim())
        .update(claim_token=token, claimed_at=timezone.now())
    )
    return token if taken else None


def run(game: str) -> int:
    """Refit `game` while refits are asked for; returns how many fits this call stored."""
    token = claim(game)
    if token is None:
        return 0
    stored = 0

    def beat() -> bool:
        return bool(RatingFit.objects.filter(game=game, claim_token=token).update(claimed_at=timezone.now()))

    try:
        with heartbeats.Heartbeat(beat, f"refit of {game}"):
            while True:
                # Clearing `pending` first: a match committed after this point sets it again and gets one more fit.
                if not RatingFit.objects.filter(game=game, claim_token=token).update(
                    pending=False, claimed_at=timezone.now()
                ):
                    break
                counts, last_played = pair_counts(game)
                if not store(game, token, counts, fit(counts, stored_elos(game)), last_played):
                    break
                stored += 1
                if RatingFit.objects.filter(game=game, claim_token=token, pending=False).update(
                    claim_token=None, claimed_at=None
                ):
                    return stored
    except retrying.TRANSIENT as error:
        # Hand the claim back as soon as the database answers, so the task's retry takes it at once.
        retrying.call(lambda: _release(game, token), f"refit of {game}: handing its claim back")
        log.warning("refit of %s: %s; asked for again", game, retrying.what_failed(error))
        raise
    log.warning("refit of %s: the claim was taken over (this refit was presumed dead); its fit is dropped", game)
    return stored


def _release(game: str, token: uuid.UUID) -> None:
    RatingFit.objects.filter(game=game, claim_token=token).update(claim_token=None, claimed_at=None, pending=True)


def refit(game: str) -> bool:
    """Refit `game` now, in this process; False if another live refit holds the claim (it then covers this)."""
    _state(game)
    RatingFit.objects.filter(game=game).update(pending=True)
    return run(game) > 0


def store(
    game: str,
    token: uuid.UUID,
    counts: GameCounts,
    fitted: dict[int, bradley_terry.Rating],
    last_played: dict[int, datetime],
) -> bool:
    """Rewrite the game's ratings from one fit, only while `token` holds the claim; False if it does not."""
    now = timezone.now()
    try:
        with transaction.atomic():
            if coop_ratings.is_key(game):
                coop_ratings.write(game, fitted)
            else:
                # One insert: the versions whose rating moved since their own last point.
                points, moved = history.next_points(history.last_points(game), fitted)
                RatingPoint.objects.bulk_create(history.point_rows(game, points, moved, now), batch_size=2_000)
                _write(game, fitted, last_played, points)
            # Checked last, so the state row is locked only for the commit, never while the ratings are written.
            stamped = RatingFit.objects.filter(game=game, claim_token=token).update(games=counts.total, fitted_at=now)
            if not stamped:
                raise _ClaimLost
            signals.send_leaderboard_changed(coop_ratings.game_of(game) if coop_ratings.is_key(game) else game)
    except _ClaimLost:
        return False
    return True


def _write(
    game: str,
    fitted: dict[int, bradley_terry.Rating],
    last_played: dict[int, datetime],
    points: dict[int, history.Point],
) -> None:
    versions = list(fitted)
    rated, kept = [fitted[pk] for pk in versions], [points[pk] for pk in versions]
    refit_sql.replace_ratings(
        game,
        {
            "version_id": versions,
            "elo": [r.elo for r in rated],
            "low": [r.low for r in rated],
            "high": [r.high for r in rated],
            "games": [r.games for r in rated],
            "wins": [r.wins for r in rated],
            "losses": [r.losses for r in rated],
            "last_played": [last_played.get(pk) for pk in versions],
            "point_elo": [p.elo for p in kept],
            "point_low": [p.low for p in kept],
            "point_high": [p.high for p in kept],
            "point_games": [p.games for p in kept],
        },
    )


def resume_stale() -> int:
    """Queue a refit for each game whose refit was asked for but whose claimant died or whose message was lost.

    A refit asked for less than a lease after the last fit is most likely on its way: it is left alone.
    """
    recent = Q(fitted_at__gte=timezone.now() - LEASE)
    stale = RatingFit.objects.filter(pending=True).exclude(_live_claim()).exclude(recent).values_list("game", flat=True)
    games = list(stale)
    for game in games:
        queue.refit_ratings(game)
    return len(games)


@receiver(events.match_stored)
def _refit_after(sender: object, match: Match, **kwargs: object) -> None:
    if results.counts_for_pairs(match):
        transaction.on_commit(lambda: request(match.game))
