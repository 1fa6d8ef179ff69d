"""A tournament's standings and crosstable, computed from the per-entry results on `MatchEntry` (kept as games are
stored), never from seats."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from league.arena.models import BotVersion, MatchEntry, Tournament


@dataclass
class Standing:
    version: BotVersion
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    points: float = 0.0
    results: dict[int, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0]))

    @property
    def score_percent(self) -> float | None:
        return 100.0 * self.points / self.games if self.games else None


@dataclass
class Table:
    standings: list[Standing]
    crosstable: list[tuple[Standing, list[str | None]]]


_COUNTED = ("games", "wins", "losses", "draws", "points")


def _results_against(tournament: Tournament) -> dict[tuple[int, int], dict[str, float]]:
    """Each entry's results per (version, opponent version), summed over the tournament's matches.

    The entries are read through the tournament's matches and paired here, so the work grows with the
    tournament, not with the league (a self-join in SQL made the planner scan every match entry).
    """
    entries = (
        MatchEntry.objects.filter(match__tournament=tournament)
        .order_by("match_id", "index")
        .values_list("match_id", "version_id", *_COUNTED)
    )
    by_match: dict[int, list[tuple]] = defaultdict(list)
    for match_id, *entry in entries:
        by_match[match_id].append(entry)
    totals: dict[tuple[int, int], dict[str, float]] = {}
    for pair in by_match.values():
        if len(pair) != 2:
            continue
        for (me, *counts), (opponent, *_) in (pair, pair[::-1]):
            total = totals.setdefault((me, opponent), dict.fromkeys(_COUNTED, 0))
            for name, value in zip(_COUNTED, counts, strict=True):
                total[name] += value
    return totals


def table(tournament: Tournament) -> Table:
    """Standings (points, then wins) and the crosstable of points won against each opponent."""
    versions = [
        entry.version
        for entry in tournament.entries.select_related("version__bot__owner").order_by("pk")
        if entry.version is not None
    ]
    rows = {version.pk: Standing(version) for version in versions}
    for (me, opponent), result in _results_against(tournament).items():
        standing = rows.get(me)
        if standing is None or not result["games"]:
            continue
        standing.games += result["games"]
        standing.wins += result["wins"]
        standing.losses += result["losses"]
        standing.draws += result["draws"]
        standing.points += result["points"]
        standing.results[opponent] = [result["points"], result["games"]]
    ordered = sorted(rows.values(), key=lambda s: (-s.points, -s.wins, s.version.bot.full_name))

    def cell(row: Standing, column: Standing) -> str | None:
        if row is column:
            return None
        points, games = row.results.get(column.version.pk, (0.0, 0))
        return f"{points:g}/{games}" if games else "–"

    crosstable = [(row, [cell(row, column) for column in ordered]) for row in ordered]
    return Table(standings=ordered, crosstable=crosstable)
