"""A bot's rating history, per version: one point per refit that moved the version's rating (`RatingPoint`)."""

from __future__ import annotations

from typing import Any

from league.arena.models import Bot, BotVersion, RatingPoint

POINTS_PER_VERSION = 500  # the newest ones; the bot page's chart shows 300


def rating_points(bot: Bot, versions: list[BotVersion]) -> dict[int, list[dict[str, Any]]]:
    """{version id: [{at, elo, low, high, games}, ...] oldest first}; versions never rated have no points."""
    points: dict[int, list[dict[str, Any]]] = {version.pk: [] for version in versions}
    rows = (
        RatingPoint.objects.filter(version_id__in=list(points))
        .order_by("version_id", "-fitted_at", "-pk")
        .values_list("version_id", "fitted_at", "elo", "low", "high", "games")
    )
    for version_id, at, elo, low, high, games in rows:
        if len(points[version_id]) < POINTS_PER_VERSION:
            points[version_id].append({"at": at, "elo": elo, "low": low, "high": high, "games": games})
    for history in points.values():
        history.reverse()
    return points
