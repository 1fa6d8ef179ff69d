"""The house bots, named `house:NAME` on the command line and in logs.

Each is an ordinary bot module (`play(observation) -> turn`, optionally `new_game(info)`), written against
the public bot contract only. `load_house_bot` returns a fresh module object on every call: module globals
persist across the games of a match, so two seats (or two matches) must never share one.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

HOUSE_BOTS: dict[str, str] = {
    "random": "bots.house.random_bot",
    "greedy": "bots.house.greedy",
    "expert": "bots.house.expert",
}


class UnknownHouseBot(ValueError):
    """A house bot name that is not in HOUSE_BOTS."""


def load_house_bot(name: str) -> ModuleType:
    """A new, unshared instance of the house bot `name` (e.g. "greedy")."""
    try:
        module_name = HOUSE_BOTS[name]
    except KeyError:
        known = ", ".join(sorted(HOUSE_BOTS))
        raise UnknownHouseBot(f"unknown house bot {name!r}; house bots are: {known}") from None
    return fresh_module(module_name)


def fresh_module(module_name: str) -> ModuleType:
    """Execute `module_name` into a new module object that is not registered in sys.modules."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot find module {module_name}")
    module = importlib.util.module_from_spec(spec)
    # Registered only while it executes: class machinery such as dataclasses looks its module up by name.
    shared = sys.modules.get(module_name)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        if shared is None:
            del sys.modules[module_name]
        else:
            sys.modules[module_name] = shared
    return module
