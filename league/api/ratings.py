"""A bot's rating history, per version.

HOOK for the rating-history model (not in the league yet): `rating_points` returns each version's current
rating as its only point, stamped with the time of its game's last refit. When refits keep a history, read it
here (oldest first); the endpoint's shape (/api/bots/<id>/ratings/) stays the same.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from league.arena.models import Bot, BotVersion, RatingFit


def rating_points(bot: Bot, versions: list[BotVersion]) -> dict[int, list[dict[str, Any]]]:
    """{version id: [{at, elo, low, high, games}, ...] oldest first}; versions never rated have no points."""
    fitted_at: datetime | None = RatingFit.objects.filter(game=bot.game).values_list("fitted_at", flat=True).first()
    points: dict[int, list[dict[str, Any]]] = {}
    for version in versions:
        rating = getattr(version, "rating", None)
        points[version.pk] = (
            []
            if rating is None
            else [
                {
                    "at": fitted_at or rating.last_played,
                    "elo": rating.elo,
                    "low": rating.low,
                    "high": rating.high,
                    "games": rating.games,
                }
            ]
        )
    return points
