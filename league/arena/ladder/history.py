"""Rating history: a point per version each time a refit moves its rating, written with the refit's ratings.

A refit refits every version of the game, and new games anywhere shift every connected rating a little, so a
point is written only for a version whose games changed or whose rating moved at least `STEP` Elo since its
own last point: the history stays bounded by what a reader could see (the pages show whole Elo), and slow drift
still shows once it adds up. Each `Rating` row keeps a copy of its version's newest point (`point_*`), so a
refit finds every last point in the one read of the ratings it makes anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from league.arena.ladder import bradley_terry
from league.arena.models import Rating, RatingPoint

STEP = 0.5  # Elo


@dataclass(frozen=True)
class Point:
    """A version's rating as its newest history point recorded it."""

    elo: float
    low: float
    high: float
    games: int


def last_points(game: str) -> tuple[dict[int, Point], dict[int, int]]:
    """Each rated version's newest point, as kept on its Rating row, and the games its rating was fitted on."""
    rows = Rating.objects.filter(game=game).values_list(
        "version_id", "point_elo", "point_low", "point_high", "point_games", "games"
    )
    points, games = {}, {}
    for version, elo, low, high, point_games, fitted_games in rows:
        games[version] = fitted_games
        if elo is not None:
            points[version] = Point(elo, low, high, point_games)
    return points, games


def moved(point: Point | None, rating: bradley_terry.Rating) -> bool:
    if point is None or point.games != rating.games:
        return True
    return any(
        abs(a - b) >= STEP for a, b in ((point.elo, rating.elo), (point.low, rating.low), (point.high, rating.high))
    )


def next_points(last: dict[int, Point], fitted: dict[int, bradley_terry.Rating]) -> tuple[dict[int, Point], list[int]]:
    """Each fitted version's newest point after this fit, and the versions whose point is new."""
    points, moved_versions = {}, []
    for pk, r in fitted.items():
        if moved(last.get(pk), r):
            points[pk] = Point(r.elo, r.low, r.high, r.games)
            moved_versions.append(pk)
        else:
            points[pk] = last[pk]
    return points, moved_versions


def point_rows(game: str, points: dict[int, Point], versions: list[int], fitted_at: datetime) -> list[RatingPoint]:
    """The RatingPoint rows of `versions`' new points."""
    return [
        RatingPoint(
            version_id=pk,
            game=game,
            elo=points[pk].elo,
            low=points[pk].low,
            high=points[pk].high,
            games=points[pk].games,
            fitted_at=fitted_at,
        )
        for pk in versions
    ]
