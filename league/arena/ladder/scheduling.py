"""The continuous ladder's schedule: who plays whom next.

Each bot on the ladder (`Bot.objects.on_ladder()`: not retired, not disabled) takes part with its newest active
version (`Bot.active_version`); every version keeps its own rating.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from league.arena import queue
from league.arena.lib import seeds
from league.arena.models import COMPETITIVE_GAMES, BotVersion, Match, MatchEntry, Rating, ScheduleLock

ANCHOR = 1500.0  # the rating a member without one is paired as


def members(game: str) -> list[BotVersion]:
    """The ladder version of every bot of this game that is on the ladder."""
    ladder = BotVersion.objects.on_ladder().filter(bot__game=game)
    return list(ladder.select_related("bot__owner").order_by("pk"))


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


def _lock(game: str) -> None:
    """Hold the game's scheduler lock until the transaction ends (one scheduler per game at a time)."""
    ScheduleLock.objects.get_or_create(game=game)
    ScheduleLock.objects.select_for_update().get(game=game)


def schedule(game: str) -> list[Match]:
    """Queue ladder matches while fewer than ARENA_LADDER_MAX_PENDING are waiting or running."""
    with transaction.atomic():
        _lock(game)
        pending = Match.objects.filter(
            kind=Match.Kind.LADDER, game=game, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        )
        room = settings.ARENA_LADDER_MAX_PENDING - pending.count()
        if room <= 0:
            return []
        busy = set(MatchEntry.objects.filter(match__in=pending).values_list("version_id", flat=True))
        free = [version for version in members(game) if version.pk not in busy]
        rated = Rating.objects.filter(version__in=free).values_list("version_id", "games", "elo")
        games, elo = {}, {}
        for pk, played, rating in rated:
            games[pk], elo[pk] = played, rating
        planned = [
            (
                Match(
                    kind=Match.Kind.LADDER,
                    game=game,
                    games=settings.ARENA_LADDER_GAMES,
                    seed=seeds.random_seed(),
                    duplicate=True,
                    turn_seconds=settings.ARENA_TURN_SECONDS,
                    bank_seconds=settings.ARENA_BANK_SECONDS,
                    startup_seconds=settings.ARENA_STARTUP_SECONDS,
                    rated=True,
                ),
                [first, second],
            )
            for first, second in pair(free, games, elo, room)
        ]
        queued = Match.objects.bulk_create_with_entries(planned)
        for match in queued:
            queue.play_match(match.pk)
    return queued


def schedule_all() -> int:
    return sum(len(schedule(game)) for game in sorted(COMPETITIVE_GAMES))
