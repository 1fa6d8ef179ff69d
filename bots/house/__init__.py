"""The house bots, named `house:NAME` on the command line, in logs and in the league (`parse_ref` reads the name).

Each is an ordinary bot module (`play(observation) -> turn`, optionally `new_game(info)`), written against
the public bot contract only. `load_house_bot` returns a fresh module object on every call: module globals
persist across the games of a match, so two seats (or two matches) must never share one.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

HOUSE_PREFIX = "house:"
# name -> module within this package. Relative on purpose: a full module name written here would read, to
# `bots.house.versions`, as a module that every house bot importing this package loads.
HOUSE_BOTS: dict[str, str] = {
    "random": "random_bot",
    "greedy": "greedy",
    "expert": "expert",
}


class UnknownHouseBot(ValueError):
    """A house bot name that is not in HOUSE_BOTS."""


def is_house_ref(ref: str) -> bool:
    """Whether a bot reference names a house bot (`house:NAME`) rather than a bot file."""
    return ref.startswith(HOUSE_PREFIX)


def parse_ref(ref: str) -> str:
    """The house bot's name in `ref` ("house:greedy" -> "greedy"); UnknownHouseBot unless it names one."""
    if not is_house_ref(ref):
        raise UnknownHouseBot(f"{ref!r} is not a house bot reference; write house:NAME ({_known()})")
    name = ref[len(HOUSE_PREFIX) :]
    if name not in HOUSE_BOTS:
        raise UnknownHouseBot(f"unknown house bot {name!r}; {_known()}")
    return name


def _known() -> str:
    return "house bots are: " + ", ".join(HOUSE_PREFIX + name for name in sorted(HOUSE_BOTS))


def house_module(name: str) -> str:
    """The module that is the house bot `name` (e.g. "greedy" -> "bots.house.greedy")."""
    try:
        return f"{__name__}.{HOUSE_BOTS[name]}"
    except KeyError:
        raise UnknownHouseBot(f"unknown house bot {name!r}; {_known()}") from None


def load_house_bot(name: str) -> ModuleType:
    """A new, unshared instance of the house bot `name` (e.g. "greedy")."""
    return fresh_module(house_module(name))


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
