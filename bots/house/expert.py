"""House bot "expert": hands each game to its specialist module.

Face to Face goes to `bots.house.expert_face_to_face`, the co-op games (The Game, Extreme) to
`bots.house.expert_coop`. The specialists are loaded as fresh module objects owned by this instance, so
two expert seats never share state through them.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from bots.house import fresh_module

SPECIALISTS = {
    "face-to-face": "bots.house.expert_face_to_face",
    "the-game": "bots.house.expert_coop",
    "extreme": "bots.house.expert_coop",
}

_loaded: dict[str, ModuleType] = {}


def _specialist(game: str) -> ModuleType:
    try:
        module_name = SPECIALISTS[game]
    except KeyError:
        raise ValueError(f"the expert does not play {game!r}; it plays {', '.join(SPECIALISTS)}") from None
    module = _loaded.get(module_name)
    if module is None:
        module = _loaded[module_name] = fresh_module(module_name)
    return module


def new_game(info: dict[str, Any]) -> None:
    hook = getattr(_specialist(info["game"]), "new_game", None)
    if hook is not None:
        hook(info)


def play(observation: dict[str, Any]) -> Any:
    return _specialist(observation["game"]).play(observation)
