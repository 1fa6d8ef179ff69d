"""Bots, their versions, the matches they play, the games those produce, tournaments and ratings.

Every game points at the exact bot versions that played it (a version is a sha256 of its upload),
and a version's code is kept in the database (`BotUpload`, apart from the version row so no page loads it by
accident) so any worker on any host can run it.

Results are also kept as aggregates, written in the same transaction as the games (see `league.arena.play.results`):
`MatchEntry` counts each entry's wins, losses, draws and points, and `PairResult` counts the rated games of every
pair of versions, so refits, leaderboards and tournament tables never read the games themselves.
"""

from league.arena.models.analysis import GameAnalysis
from league.arena.models.bots import (
    BOT_NAME_RULE,
    Bot,
    BotQuerySet,
    BotUpload,
    BotVersion,
    BotVersionQuerySet,
    allowed_condition,
    ladder_condition,
)
from league.arena.models.catalog import (
    CARDS_IN_DECK,
    COMPETITIVE_GAMES,
    COOP_GAMES,
    FACE_TO_FACE,
    FORFEITS,
    GAME_CHOICES,
    GAME_NAMES,
    TEAM_SIZES,
    TERMINATION_CHOICES,
)
from league.arena.models.coop import (
    DealPair,
    DealResult,
    Season,
    SeasonRating,
    SeasonStanding,
    default_team_sizes,
    valid_team_sizes,
)
from league.arena.models.matches import Game, GameOutput, GameSeat, LogTampered, Match, MatchEntry, MatchQuerySet
from league.arena.models.notifications import Notification, NotificationSetting
from league.arena.models.ratings import (
    ForfeitCount,
    PairResult,
    Rating,
    RatingFit,
    RatingPoint,
    ScheduleLock,
    SeatResult,
)
from league.arena.models.scrims import MatchRequest
from league.arena.models.tallies import MatchTally
from league.arena.models.tournaments import Tournament, TournamentEntry
from league.arena.models.versiontests import VersionTest
from league.arena.models.workers import WorkerHealth

__all__ = [
    "BOT_NAME_RULE",
    "CARDS_IN_DECK",
    "COMPETITIVE_GAMES",
    "COOP_GAMES",
    "FACE_TO_FACE",
    "FORFEITS",
    "GAME_CHOICES",
    "GAME_NAMES",
    "TEAM_SIZES",
    "TERMINATION_CHOICES",
    "Bot",
    "BotQuerySet",
    "BotUpload",
    "BotVersion",
    "BotVersionQuerySet",
    "DealPair",
    "DealResult",
    "ForfeitCount",
    "Game",
    "GameAnalysis",
    "GameOutput",
    "GameSeat",
    "LogTampered",
    "Match",
    "MatchEntry",
    "MatchQuerySet",
    "MatchTally",
    "MatchRequest",
    "Notification",
    "NotificationSetting",
    "PairResult",
    "Rating",
    "RatingFit",
    "RatingPoint",
    "ScheduleLock",
    "Season",
    "SeasonRating",
    "SeasonStanding",
    "SeatResult",
    "Tournament",
    "TournamentEntry",
    "VersionTest",
    "WorkerHealth",
    "allowed_condition",
    "default_team_sizes",
    "ladder_condition",
    "valid_team_sizes",
]
