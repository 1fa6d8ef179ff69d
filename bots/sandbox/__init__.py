"""Run untrusted bots in a bubblewrap sandbox (see docs/bot-api.md for the contract a bot sees)."""

from bots.sandbox.bwrap import SandboxUnavailable
from bots.sandbox.limits import SandboxLimits
from bots.sandbox.player import SandboxedPlayer
from bots.sandbox.unpack import BotPackageError, unpack_bot

__all__ = ["BotPackageError", "SandboxLimits", "SandboxUnavailable", "SandboxedPlayer", "unpack_bot"]
