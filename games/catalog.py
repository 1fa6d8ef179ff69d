"""The games this engine plays: the ids that logs, bots and the league use, and their display names."""

from __future__ import annotations

from types import MappingProxyType

FACE_TO_FACE = "face-to-face"
THE_GAME = "the-game"
EXTREME = "extreme"

GAME_NAMES = MappingProxyType(
    {FACE_TO_FACE: "The Game: Face to Face", THE_GAME: "The Game", EXTREME: "The Game Extreme"}
)
GAME_IDS: tuple[str, ...] = tuple(GAME_NAMES)
