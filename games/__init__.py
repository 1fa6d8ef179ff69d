"""The rules engine for The Game: Face to Face, The Game and The Game Extreme.

Pure Python with no dependency on bots/ or league/. See docs/engine-api.md.
"""

from games.errors import CommandBroken, GameOver, IllegalTurn, LogMismatch
from games.factory import GAME_IDS, new_game
from games.log import LOG_FORMAT, LOG_VERSION, GameLog, dumps_log, read_log
from games.moves import Play, Turn
from games.outcome import Outcome, Termination
from games.replay import replay
from games.state import GameState

__all__ = [
    "GAME_IDS",
    "LOG_FORMAT",
    "LOG_VERSION",
    "CommandBroken",
    "GameLog",
    "GameOver",
    "GameState",
    "IllegalTurn",
    "LogMismatch",
    "Outcome",
    "Play",
    "Termination",
    "Turn",
    "dumps_log",
    "new_game",
    "read_log",
    "replay",
]
