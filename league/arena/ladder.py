"""The continuous ladder: who plays whom next, and the ratings refit from every rated game.

Each bot takes part with its newest active version; every version keeps its own rating.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, OuterRef, Subquery
from django.utils import timezone

from league import ratings
from league.arena.models import (
    COMPETITIVE_GAMES,
    Bot,
    BotVersion,
    Game,
    GameSeat,
    Match,
    MatchEntry,
    Rating,
    RatingFit,
)

log = logging.getLogger(__name__)
ANCHOR = 1500.0


def members(game: str) -> list[BotVersion]:
    """The newest active version of every bot of this game."""
    newest: dict[int, BotVersion] = {}
    versions = (
        BotVersion.objects.filter(status=BotVersion.Status.ACTIVE, bot__game=game)
        .select_related("bot__owner")
        .order_by("bot_id", "-number")
    )
    for version in versions:
        newest.setdefault(version.bot_id, version)
    return list(newest.values())


def pair(candidates: list[BotVersion], games: dict[int, int], elo: dict[int, float], room: int) -> list[tuple]:
    """Pairs for the next matches: the member with the fewest games first, against the closest rating.

    Members are distinct bots (one version each), so nobody is ever paired with itself.
    """
    pool = sorted(candidates, key=lambda v: (games.get(v.pk, 0), v.pk))
    pairs = []
    while room > 0 and len(pool) >= 2:
        first = pool.pop(0)
        rating = elo.get(first.pk, ANCHOR)
        second = min(pool, key=lambda v: (abs(elo.get(v.pk, ANCHOR) - rating), games.get(v.pk, 0), v.pk))
        pool.remove(second)
        pairs.append((first, second))
        room -= 1
    return pairs


def schedule(game: str) -> list[Match]:
    """Queue ladder matches while fewer than ARENA_LADDER_MAX_PENDING are waiting or running."""
    from league.arena import tasks

    with transaction.atomic():
        RatingFit.objects.get_or_create(game=game)
        RatingFit.objects.select_for_update().get(game=game)  # one scheduler per game at a time
        pending = Match.objects.filter(
            kind=Match.Kind.LADDER, game=game, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        )
        room = settings.ARENA_LADDER_MAX_PENDING - pending.count()
        if room <= 0:
            return []
        busy = set(MatchEntry.objects.filter(match__in=pending).values_list("version_id", flat=True))
        free = [version for version in members(game) if version.pk not in busy]
        stats = {r.version_id: r for r in Rating.objects.filter(version__in=free)}
        games = {pk: r.games for pk, r in stats.items()}
        elo = {pk: r.elo for pk, r in stats.items()}
        queued = []
        for first, second in pair(free, games, elo, room):
            match = Match.objects.create(
                kind=Match.Kind.LADDER,
                game=game,
                games=settings.ARENA_LADDER_GAMES,
                seed=f"ladder-{secrets.token_hex(8)}",
                duplicate=True,
                turn_seconds=settings.ARENA_TURN_SECONDS,
                bank_seconds=settings.ARENA_BANK_SECONDS,
                startup_seconds=settings.ARENA_STARTUP_SECONDS,
                rated=True,
            )
            MatchEntry.objects.bulk_create(
                [MatchEntry(match=match, index=0, version=first), MatchEntry(match=match, index=1, version=second)]
            )
            queued.append(match)
        ids = [match.pk for match in queued]
        transaction.on_commit(lambda: [tasks.play_match.delay(pk) for pk in ids])
    return queued


def schedule_all() -> int:
    return sum(len(schedule(game)) for game in sorted(COMPETITIVE_GAMES))


@dataclass(frozen=True)
class GameCounts:
    """Rated results grouped per (seat-0 version, seat-1 version): the input of a refit."""

    players: list[int]
    a: np.ndarray
    b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    draws: np.ndarray
    total: int


def rated_games(game: str) -> tuple[GameCounts, dict[int, datetime]]:
    """Every finished rated game of `game`, counted per pairing in the database."""
    seat = GameSeat.objects.filter(game=OuterRef("pk"))
    grouped = (
        Game.objects.filter(game=game, match__rated=True, match__status=Match.Status.DONE)
        .annotate(
            v0=Subquery(seat.filter(seat=0).values("version_id")[:1]),
            v1=Subquery(seat.filter(seat=1).values("version_id")[:1]),
        )
        .values("v0", "v1", "winner_seat")
        .annotate(n=Count("pk"))
        .order_by()
    )
    counts: dict[tuple[int, int], list[int]] = {}
    for row in grouped:
        if row["v0"] is None or row["v1"] is None or row["v0"] == row["v1"]:
            continue
        cell = counts.setdefault((row["v0"], row["v1"]), [0, 0, 0])
        cell[{0: 0, 1: 1}.get(row["winner_seat"], 2)] += row["n"]
    players = sorted({v for key in counts for v in key})
    index = {v: k for k, v in enumerate(players)}
    keys = list(counts)
    values = np.array([counts[k] for k in keys], dtype=np.int64).reshape(-1, 3)
    last = dict(
        GameSeat.objects.filter(game__game=game, game__match__rated=True, game__match__status=Match.Status.DONE)
        .values("version_id")
        .annotate(last=Max("game__played_at"))
        .values_list("version_id", "last")
    )
    return (
        GameCounts(
            players=players,
            a=np.array([index[k[0]] for k in keys], dtype=np.int64),
            b=np.array([index[k[1]] for k in keys], dtype=np.int64),
            wins_a=values[:, 0],
            wins_b=values[:, 1],
            draws=values[:, 2],
            total=int(values.sum()),
        ),
        last,
    )


def fit(counts: GameCounts) -> dict[int, ratings.Rating]:
    return ratings.fit_counts(
        counts.players,
        counts.a,
        counts.b,
        wins_a=counts.wins_a,
        wins_b=counts.wins_b,
        draws=counts.draws,
        prior_games=settings.ARENA_RATING_PRIOR_GAMES,
        anchor=ANCHOR,
    )


def refit(game: str) -> bool:
    """Refit all ratings of `game` from its stored games; False if a newer fit was already stored."""
    counts, last_played = rated_games(game)
    fitted = fit(counts)
    with transaction.atomic():
        RatingFit.objects.get_or_create(game=game)
        state = RatingFit.objects.select_for_update().get(game=game)
        # Games are never deleted, so a fit over fewer games than the stored one saw older data.
        if state.fitted_at is not None and state.games > counts.total:
            return False
        Rating.objects.filter(game=game).exclude(version_id__in=list(fitted)).delete()
        Rating.objects.bulk_create(
            [
                Rating(
                    version_id=pk,
                    game=game,
                    elo=r.elo,
                    low=r.low,
                    high=r.high,
                    games=r.games,
                    wins=r.wins,
                    losses=r.losses,
                    last_played=last_played.get(pk),
                )
                for pk, r in fitted.items()
            ],
            update_conflicts=True,
            unique_fields=["version"],
            update_fields=["game", "elo", "low", "high", "games", "wins", "losses", "last_played"],
        )
        state.games = counts.total
        state.fitted_at = timezone.now()
        state.save()
    return True


@dataclass(frozen=True)
class LadderRow:
    rank: int | None
    bot: Bot
    version: BotVersion
    rating: Rating | None


def leaderboard(game: str) -> list[LadderRow]:
    """One row per bot, showing its newest active version; rated rows by Elo, unrated ones last."""
    current = members(game)
    found = {r.version_id: r for r in Rating.objects.filter(version__in=current)}
    rated = sorted((v for v in current if v.pk in found), key=lambda v: (-found[v.pk].elo, v.bot.full_name))
    unrated = sorted((v for v in current if v.pk not in found), key=lambda v: v.bot.full_name)
    rows = [LadderRow(rank, v.bot, v, found[v.pk]) for rank, v in enumerate(rated, start=1)]
    rows += [LadderRow(None, v.bot, v, None) for v in unrated]
    return rows
