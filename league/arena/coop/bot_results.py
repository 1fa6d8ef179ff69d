"""A co-op bot's own view of its game's current season, for its page and its owner's profile: per team size, its
ladder version's win rate with its 95% interval, mean and median cards left, Elo and rank (ranked as the season's
leaderboard ranks), and its newest deals with their replays and the per-deal comparison."""

from __future__ import annotations

from dataclasses import dataclass

from league.arena.coop.challenges import current_season
from league.arena.coop.leaderboards import Rating
from league.arena.coop.results import Figures
from league.arena.models import COOP_GAMES, Bot, BotVersion, DealResult, Season, SeasonRating, SeasonStanding

RECENT_DEALS = 10


@dataclass(frozen=True)
class TeamResult:
    players: int
    figures: Figures | None
    rating: Rating | None
    rank: int | None
    ranked: int  # rated ladder versions at this team size


@dataclass(frozen=True)
class SeasonResults:
    season: Season
    version: BotVersion
    teams: list[TeamResult]
    recent: list[DealResult]  # the newest deals it played (any team size), with their games

    @property
    def played(self) -> bool:
        return any(team.figures is not None for team in self.teams)


def season_results(bot: Bot) -> SeasonResults | None:
    """The bot's ladder version in its game's current season, or None (not a co-op bot, no season, no version)."""
    if bot.game not in COOP_GAMES or bot.active_version_id is None:
        return None
    season = current_season(bot.game)
    if season is None:
        return None
    version = bot.active_version
    standings = {
        row.players: row for row in SeasonStanding.objects.filter(season=season, version=version)
    }  # one row per team size
    ratings = {row.players: row for row in SeasonRating.objects.filter(season=season, version=version)}
    on_ladder = BotVersion.objects.on_ladder()
    teams = []
    for players in season.team_sizes:
        standing = standings.get(players)
        figures = (
            Figures(standing.deals, standing.wins, standing.cards_left, standing.histogram)
            if standing is not None and standing.deals
            else None
        )
        rated = ratings.get(players)
        rating = Rating(rated.elo, rated.low, rated.high, rated.comparisons) if rated is not None else None
        pool = SeasonRating.objects.filter(season=season, players=players, version__in=on_ladder)
        rank = None
        if rated is not None and bot.is_on_ladder:
            rank = 1 + pool.filter(elo__gt=rated.elo).count()  # the leaderboard's order: Elo, highest first
        teams.append(TeamResult(players, figures, rating, rank, pool.count()))
    recent = list(
        DealResult.objects.filter(season=season, version=version)
        .select_related("game")
        .order_by("-game_id")[:RECENT_DEALS]
    )
    return SeasonResults(season, version, teams, recent)
