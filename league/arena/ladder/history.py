"""Rating history: a point per version each time a refit moves its rating, written with the refit's ratings.

A refit refits every version of the game, and new games anywhere shift every connected rating a little, so a
point is written only for a version whose games changed or whose rating moved at least `STEP` Elo since its
own last point: the history stays bounded by what a reader could see (the pages show whole Elo), and slow drift
still shows once it adds up. Each `Rating` row keeps a copy of its version's newest point (`point_*`), so a
refit finds every last point in the one read of the ratings it makes anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from league.arena.ladder import refit_sql
from league.arena.models import Rating

STEP = 0.5  # Elo


@dataclass(frozen=True)
class Points:
    """History points of some versions, one per index: Elo, interval and games (NaN and -1 for a version without)."""

    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    games: np.ndarray

    @classmethod
    def none(cls, count: int) -> Points:
        return cls(np.full(count, np.nan), np.full(count, np.nan), np.full(count, np.nan), np.full(count, -1))

    def take(self, index: np.ndarray) -> Points:
        return Points(self.elo[index], self.low[index], self.high[index], self.games[index])

    def where(self, mask: np.ndarray, other: Points) -> Points:
        """These points where `mask` holds, `other`'s elsewhere."""
        return Points(
            *(np.where(mask, mine, theirs) for mine, theirs in zip(self._columns(), other._columns(), strict=True))
        )

    def _columns(self) -> tuple[np.ndarray, ...]:
        return self.elo, self.low, self.high, self.games


@dataclass(frozen=True)
class Stored:
    """A game's Rating rows by version (ascending): the games each rating was fitted on and its newest point."""

    versions: np.ndarray
    games: np.ndarray
    points: Points

    def of(self, versions: np.ndarray) -> tuple[np.ndarray, Points]:
        """For `versions`: the games their stored ratings were fitted on (-1 if none) and their newest points."""
        none = Points.none(len(versions))
        if not len(self.versions):
            return none.games, none
        at = np.minimum(np.searchsorted(self.versions, versions), len(self.versions) - 1)
        found = self.versions[at] == versions
        return np.where(found, self.games[at], -1), self.points.take(at).where(found, none)


def stored(game: str) -> Stored:
    """Each rated version's newest point, as kept on its Rating row, and the games its rating was fitted on."""
    fields = ("version_id", "games", "point_elo", "point_low", "point_high", "point_games")
    table = refit_sql.read_numbers(Rating.objects.filter(game=game), fields)  # a NULL point reads as NaN
    table = table[np.argsort(table[:, 0], kind="stable")]
    has_point = ~np.isnan(table[:, 2])
    games = np.where(has_point, table[:, 5], -1).astype(np.int64)
    points = Points(table[:, 2], table[:, 3], table[:, 4], games)
    return Stored(table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), points)


def moved(last: Points, fitted: Points) -> np.ndarray:
    """Per version: is the fitted rating a new point (no point yet, other games, or a bound moved >= STEP)?"""
    with np.errstate(invalid="ignore"):  # an infinite bound minus itself: NaN, not a move
        far = [
            np.abs(a - b) >= STEP for a, b in ((last.elo, fitted.elo), (last.low, fitted.low), (last.high, fitted.high))
        ]
    return (last.games != fitted.games) | far[0] | far[1] | far[2]
