"""Helpers for the sandbox tests: run a bot once in a sandbox, and see which processes it left behind."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.players import BotFailure
from bots.sandbox import SandboxedPlayer, SandboxLimits

ATTACKS = Path(__file__).parent / "attacks"
REPO = Path(__file__).resolve().parents[2]


@dataclass
class AttackResult:
    turn: Any = None
    failure: BotFailure | None = None
    elapsed: float = 0.0
    log: str = ""
    namespace: str | None = None  # the sandbox's PID namespace, to check that nothing of it survived


def pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def processes_in(namespace: str) -> list[int]:
    """Host PIDs of every process still in the given PID namespace."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and pid_namespace(int(entry)) == namespace:
            found.append(int(entry))
    return found


def run_bot(
    bot: Path,
    attack: dict[str, Any] | None = None,
    timeout: float = 3.0,
    limits: SandboxLimits | None = None,
    start_timeout: float = 5.0,
) -> AttackResult:
    """Start the bot in a sandbox, ask it for one turn, close it; report what happened."""
    player = SandboxedPlayer(bot, limits=limits)
    result = AttackResult()
    started = time.perf_counter()
    try:
        player.start(start_timeout)
        result.namespace = pid_namespace(player.sandbox_pid)
        player.new_game({"game": "the-game", "players": 1, "seat": 0, "seed": 1, "options": {}}, timeout)
        started = time.perf_counter()
        result.turn, _ = player.play({"attack": attack or {}}, timeout)
    except BotFailure as failure:
        result.failure = failure
    finally:
        result.elapsed = time.perf_counter() - started
        result.log = player.take_stderr()
        player.close()
    return result
