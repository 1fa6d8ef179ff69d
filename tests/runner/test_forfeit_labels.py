"""A bot retired after repeated failures forfeits its remaining games under the reason of its failures: after
three out-of-memory failures the rest are `resource-limit`, not `crash`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bots.match
import games
from bots.match import BotSpec, MatchSpec, run_match
from bots.players import BotFailure
from bots.sandbox import SandboxUnavailable
from games import Termination
from tests.runner.failing_player import FailingPlayer

MEMORY_BOMB = Path(__file__).resolve().parents[1] / "sandbox" / "attacks" / "memory_bomb.py"
RETIRED = "failed 3 times in this match; its remaining games are forfeits"


def check_labels(result: bots.match.MatchResult, failing_bot: int) -> None:
    outcomes = [game.outcome for game in result.games]
    assert [outcome.termination for outcome in outcomes] == [Termination.RESOURCE_LIMIT] * len(outcomes)
    assert [RETIRED in outcome.detail for outcome in outcomes] == [False] * 3 + [True] * (len(outcomes) - 3)
    for game in result.games:
        assert game.seat_bots[game.outcome.seat] == failing_bot
        assert games.replay(game.log) == game.outcome


def test_the_remaining_forfeits_keep_the_reason_of_the_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    real_make_player = bots.match.make_player

    def make_player(bot: BotSpec, spec: MatchSpec) -> Any:
        return (
            FailingPlayer(
                bot.label,
                BotFailure(Termination.RESOURCE_LIMIT, "play raised MemoryError", stderr_tail="MemoryError\n"),
            )
            if bot.ref == "hungry"
            else real_make_player(bot, spec)
        )

    monkeypatch.setattr(bots.match, "make_player", make_player)
    spec = MatchSpec(
        "the-game", [BotSpec("house:greedy"), BotSpec("hungry", version="sha256:hungry")], games=6, seed="oom"
    )
    result = run_match(spec)
    check_labels(result, failing_bot=1)
    assert "MemoryError" in result.stderr[1]


def test_a_sandboxed_memory_bomb_forfeits_its_remaining_games_for_the_resource_limit() -> None:
    spec = MatchSpec("face-to-face", [BotSpec(str(MEMORY_BOMB)), BotSpec("house:greedy")], games=5, seed="oom")
    try:
        result = run_match(spec)
    except SandboxUnavailable as error:
        pytest.skip(f"no usable sandbox on this host: {error}")
    check_labels(result, failing_bot=0)
