"""The rules engine for The Game: Face to Face, The Game and The Game Extreme.

Pure Python with no dependency on bots/ or league/. See docs/engine-api.md.
"""

# The environment is checked before anything imports a dependency, so the imports below follow a call.
# ruff: noqa: E402
from games.environment import ensure_dependencies

ensure_dependencies()  # `python3 -m games|bots|bench...` from a checkout: see games/environment.py

from games.catalog import EXTREME, FACE_TO_FACE, GAME_IDS, GAME_NAMES, THE_GAME
from games.errors import CommandBroken, GameOver, IllegalTurn, LogMismatch
from games.factory import new_game
from games.log import LOG_FORMAT, LOG_VERSION, GameLog, dumps_log, read_log
from games.moves import Play, Turn
from games.outcome import FORFEITS, Outcome, Termination
from games.replay import position_before, replay
from games.state import GameState

__all__ = [
    "EXTREME",
    "FACE_TO_FACE",
    "FORFEITS",
    "GAME_IDS",
    "GAME_NAMES",
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
    "THE_GAME",
    "Termination",
    "Turn",
    "dumps_log",
    "new_game",
    "position_before",
    "read_log",
    "replay",
]
