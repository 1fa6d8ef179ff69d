"""Storing co-op challenge results: each deal's cards left, per-version standings and duplicate comparisons.

`record` runs in the transaction that stores a challenge match's games (`matches.store`). For every deal the
version just played it keeps a `DealResult`, adds the deal to the version's `SeasonStanding` (deals, wins, sum and
histogram of cards left) and compares it with every other version's result on the same deal of the same season and
team size: fewer cards left wins, equal counts draw (`DealPair`, lower version id first). A refit of that ladder
then reads O(pairs) rows, never the games.

Two storers of the same season must see each other's results, or a comparison between two chunks stored at the same
moment would be lost: `record` locks the season's row first, so the season's stores take turns (each takes a few
milliseconds; the games are played outside the lock).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.dispatch import receiver

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import (
    CARDS_IN_DECK,
    COOP_GAMES,
    BotVersion,
    DealPair,
    DealResult,
    Game,
    Match,
    Season,
    SeasonStanding,
)
from league.arena.play import events

Z95 = 1.959963984540054


def season_of(match: Match) -> Season | None:
    """The season whose deals a challenge match plays (its seed is the season's), or None."""
    if match.game not in COOP_GAMES or match.kind != Match.Kind.LADDER or match.tournament_id:
        return None
    return Season.objects.filter(game=match.game, seed=match.seed).first()


def record(match: Match, versions: Sequence[BotVersion], stored: Sequence[Game]) -> int:
    """Fold a stored challenge match into its season's results; returns how many deal results were new."""
    season = season_of(match)
    if season is None:
        return 0
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("record must run inside the transaction that stores the match's games")
    season = Season.objects.select_for_update().get(pk=season.pk)  # see the module's note
    players, version = match.players or 1, versions[0]
    by_deal = {match.first_deal + game.index: game for game in stored if match.first_deal + game.index < season.deals}
    known = set(
        DealResult.objects.filter(season=season, players=players, version=version, deal__in=list(by_deal)).values_list(
            "deal", flat=True
        )
    )
    fresh = [
        DealResult(season=season, players=players, version=version, deal=deal, cards_left=game.score, game=game)
        for deal, game in sorted(by_deal.items())
        if deal not in known
    ]
    if not fresh:
        return 0
    DealResult.objects.bulk_create(fresh)
    _add_to_standing(season, players, version, [row.cards_left for row in fresh])
    played_at = max(game.played_at for game in stored)
    _add_to_pairs(season, players, version.pk, {row.deal: row.cards_left for row in fresh}, played_at)
    pool = RatingPool.coop(season, players)
    transaction.on_commit(lambda: refits.request(pool))
    return len(fresh)


def empty_histogram() -> list[int]:
    return [0] * (CARDS_IN_DECK + 1)


def _add_to_standing(season: Season, players: int, version: BotVersion, cards: list[int]) -> None:
    standing, _ = SeasonStanding.objects.get_or_create(
        season=season, players=players, version=version, defaults={"histogram": empty_histogram()}
    )
    histogram = standing.histogram or empty_histogram()
    for left in cards:
        histogram[left] += 1
    standing.deals += len(cards)
    standing.wins += sum(1 for left in cards if left == 0)
    standing.cards_left += sum(cards)
    standing.histogram = histogram
    standing.save(update_fields=["deals", "wins", "cards_left", "histogram"])


@dataclass
class _Tally:
    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0


def compare(first_left: int, second_left: int) -> int | None:
    """0 if the first did better on a deal (fewer cards left), 1 if the second did, None for a draw."""
    if first_left == second_left:
        return None
    return 0 if first_left < second_left else 1


def _add_to_pairs(season: Season, players: int, version_id: int, mine: dict[int, int], played_at: datetime) -> None:
    others = DealResult.objects.filter(season=season, players=players, deal__in=list(mine)).exclude(
        version_id=version_id
    )
    tallies: dict[tuple[int, int], _Tally] = defaultdict(_Tally)
    for other, deal, left in others.values_list("version_id", "deal", "cards_left").order_by():
        first, second = sorted((version_id, other))
        first_left, second_left = (mine[deal], left) if first == version_id else (left, mine[deal])
        tally = tallies[first, second]
        outcome = compare(first_left, second_left)
        if outcome == 0:
            tally.first_wins += 1
        elif outcome == 1:
            tally.second_wins += 1
        else:
            tally.draws += 1
    if not tallies:
        return
    existing = {
        (row.first_id, row.second_id): row
        for row in DealPair.objects.filter(season=season, players=players, first_id__in={f for f, _ in tallies})
        if (row.first_id, row.second_id) in tallies
    }
    new, changed = [], []
    for (first, second), tally in sorted(tallies.items()):
        row = existing.get((first, second))
        if row is None:
            row = DealPair(season=season, players=players, first_id=first, second_id=second, last_played=played_at)
            new.append(row)
        else:
            changed.append(row)
        row.first_wins += tally.first_wins
        row.second_wins += tally.second_wins
        row.draws += tally.draws
        row.last_played = max(row.last_played, played_at)
    DealPair.objects.bulk_create(new)
    DealPair.objects.bulk_update(changed, ["first_wins", "second_wins", "draws", "last_played"])


# --- Figures shown on the leaderboards ------------------------------------------------------------------------


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default), as fractions."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def histogram_median(histogram: Sequence[int]) -> float | None:
    """The median of the values a histogram counts (the mean of the two middle ones for an even count)."""
    n = sum(histogram)
    if n == 0:
        return None

    def value_at(position: int) -> int:
        seen = 0
        for value, count in enumerate(histogram):
            seen += count
            if seen > position:
                return value
        raise AssertionError("unreachable: position < n")

    if n % 2:
        return float(value_at(n // 2))
    return (value_at(n // 2 - 1) + value_at(n // 2)) / 2


@dataclass(frozen=True)
class Figures:
    """What a co-op leaderboard shows of one version's results."""

    deals: int
    wins: int
    cards_left: int
    histogram: list[int] = field(default_factory=empty_histogram)

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.deals if self.deals else None

    @property
    def win_interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.deals)

    @property
    def win_percent(self) -> float | None:
        return None if self.win_rate is None else 100 * self.win_rate

    @property
    def interval_percent(self) -> tuple[float, float]:
        low, high = self.win_interval
        return 100 * low, 100 * high

    @property
    def mean(self) -> float | None:
        return self.cards_left / self.deals if self.deals else None

    @property
    def median(self) -> float | None:
        return histogram_median(self.histogram)

    @classmethod
    def of(cls, cards: Sequence[int]) -> Figures:
        histogram = empty_histogram()
        for left in cards:
            histogram[left] += 1
        return cls(len(cards), sum(1 for left in cards if left == 0), sum(cards), histogram)


@receiver(events.match_stored)
def _record_stored(
    sender: object, match: Match, versions: list[BotVersion], games: list[Game], **kwargs: object
) -> None:
    record(match, versions, games)
