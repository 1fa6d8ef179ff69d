"""Rating history: a point per version each time a refit moves its rating, written with the refit's ratings.

A refit refits every version of the game, and new games anywhere shift every connected rating a little, so a
point is written only for a version whose games changed or whose rating moved at least `STEP` Elo since its
own last point: the history stays bounded by what a reader could see (the pages show whole Elo), and slow drift
still shows once it adds up.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import OuterRef, Subquery

from league import ratings
from league.arena.models import Rating, RatingPoint

STEP = 0.5  # Elo


def last_points(game: str) -> dict[int, RatingPoint]:
    """Each rated version's newest point (two indexed queries: one probe per version, then the points)."""
    newest = RatingPoint.objects.filter(version=OuterRef("version")).order_by("-fitted_at", "-pk").values("pk")[:1]
    ids = Rating.objects.filter(game=game).annotate(point=Subquery(newest)).values_list("point", flat=True)
    return {point.version_id: point for point in RatingPoint.objects.filter(pk__in=[pk for pk in ids if pk])}


def moved(point: RatingPoint | None, rating: ratings.Rating) -> bool:
    if point is None or point.games != rating.games:
        return True
    return any(
        abs(a - b) >= STEP for a, b in ((point.elo, rating.elo), (point.low, rating.low), (point.high, rating.high))
    )


def new_points(game: str, fitted: dict[int, ratings.Rating], fitted_at: datetime) -> list[RatingPoint]:
    """The points a refit of `game` adds: one per version whose rating moved since its last point."""
    last = last_points(game)
    return [
        RatingPoint(version_id=pk, game=game, elo=r.elo, low=r.low, high=r.high, games=r.games, fitted_at=fitted_at)
        for pk, r in fitted.items()
        if moved(last.get(pk), r)
    ]
