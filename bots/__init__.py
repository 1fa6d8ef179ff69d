"""The bot contract, wire protocol, sandbox, match runner, house bots and the local command line. No Django."""

from games.environment import ensure_dependencies

ensure_dependencies(("orjson",))  # `python3 -m bots` from a checkout: see games/environment.py
