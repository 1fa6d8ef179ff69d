"""Co-op tournaments (The Game, The Game Extreme): every entrant plays the same deals, alone or with each partner.

- "solo deals": one match per entrant, `games_per_pairing` deals of the tournament's seed, alone.
- "pairs": one match per pair of entrants, every deal played twice with the seats in both orders (the runner's
  duplicate seating), so neither bot always starts the deal's first hand.

Every match of a tournament deals from the same seed, so all entrants meet the same cards.
Standings are read from the tournament's stored scores (a tournament is bounded: entrants x deals games, or pairs x
2 x deals), with the same columns as the challenge ladders; "pairs" adds a partner table of mean cards left.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from statistics import fmean

from league.arena.coop.results import Figures
from league.arena.lib import seeds
from league.arena.models import BotVersion, GameSeat, Match, Tournament


def deal_seed(tournament: Tournament) -> str:
    """One seed for all of the tournament's matches, so every entrant meets the same cards (see seeds.py)."""
    return seeds.derived_seed(f"coop-tournament-{tournament.pk}")


def plan(tournament: Tournament, versions: list[BotVersion]) -> list[tuple[Match, list[BotVersion]]]:
    """The matches of a co-op tournament among `versions` (unsaved, with the versions that play them)."""

    def match(games: int, players: int, duplicate: bool) -> Match:
        return Match(
            kind=Match.Kind.TOURNAMENT,
            game=tournament.game,
            tournament=tournament,
            games=games,
            players=players,
            seed=deal_seed(tournament),
            duplicate=duplicate,
            turn_seconds=tournament.turn_seconds,
            bank_seconds=tournament.bank_seconds,
            startup_seconds=tournament.startup_seconds,
            rated=False,
        )

    deals = tournament.games_per_pairing
    if tournament.format == Tournament.Format.SOLO_DEALS:
        return [(match(deals, 1, False), [version]) for version in versions]
    if tournament.format == Tournament.Format.PAIRS:
        return [(match(2 * deals, 2, True), [a, b]) for a, b in combinations(versions, 2)]
    raise ValueError(f"{tournament.format!r} is not a co-op format")


@dataclass
class CoopStanding:
    version: BotVersion
    figures: Figures
    partners: dict[int, float] = field(default_factory=dict)  # partner version id -> mean cards left together

    @property
    def score(self) -> float | None:
        """Mean cards left: over the deals (solo), or over the partners' means (pairs); lower is better."""
        if self.partners:
            return fmean(self.partners.values())
        return self.figures.mean


@dataclass
class CoopTable:
    pairs: bool
    standings: list[CoopStanding]
    partner_rows: list[tuple[CoopStanding, list[str | None]]]


def table(tournament: Tournament) -> CoopTable:
    """Standings, best score first (bots with no games last), and for pairs the partner table."""
    versions = [
        entry.version
        for entry in tournament.entries.select_related("version__bot__owner").order_by("pk")
        if entry.version is not None
    ]
    seats = (
        GameSeat.objects.filter(game__match__tournament=tournament, game__score__isnull=False)
        .order_by()
        .values_list("game_id", "version_id", "game__score")
    )
    cards: dict[int, list[int]] = defaultdict(list)
    players: dict[int, list[int]] = defaultdict(list)
    score_of: dict[int, int] = {}
    for game, version, score in seats:
        players[game].append(version)
        score_of[game] = score
    together: dict[tuple[int, int], list[int]] = defaultdict(list)
    for game, seated in players.items():
        for version in set(seated):
            cards[version].append(score_of[game])
        if len(set(seated)) == 2:
            first, second = seated
            together[first, second].append(score_of[game])
            together[second, first].append(score_of[game])
    pairs = tournament.format == Tournament.Format.PAIRS
    standings = []
    for version in versions:
        partners = {other: fmean(scores) for (me, other), scores in together.items() if me == version.pk}
        standings.append(CoopStanding(version, Figures.of(cards.get(version.pk, [])), partners))
    standings.sort(key=lambda s: (s.score is None, s.score or 0.0, s.version.bot.full_name))

    def cell(row: CoopStanding, column: CoopStanding) -> str | None:
        if row is column:
            return None
        mean = row.partners.get(column.version.pk)
        return "–" if mean is None else f"{mean:.1f}"

    partner_rows = [(row, [cell(row, column) for column in standings]) for row in standings] if pairs else []
    return CoopTable(pairs, standings, partner_rows)
