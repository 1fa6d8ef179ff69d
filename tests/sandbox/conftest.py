"""Fixtures for the sandbox tests: a usable sandbox, and a runner for the attack bots."""

from __future__ import annotations

from typing import Any

import pytest
from sandbox_helpers import ATTACKS, AttackResult, processes_in, run_bot

from bots.sandbox import SandboxedPlayer, SandboxUnavailable


@pytest.fixture(scope="session")
def sandbox_works(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Skip (with the reason) only when this host genuinely cannot run a sandbox."""
    bot = tmp_path_factory.mktemp("probe") / "bot.py"
    bot.write_text("def play(observation):\n    return []\n")
    player = SandboxedPlayer(bot)
    try:
        player.start(10)
    except SandboxUnavailable as error:
        pytest.skip(f"no usable sandbox on this host: {error}")
    finally:
        player.close()


@pytest.fixture
def attack(sandbox_works: None):
    def run(name: str, params: dict[str, Any] | None = None, **options: Any) -> AttackResult:
        result = run_bot(ATTACKS / f"{name}.py", params, **options)
        if result.namespace is not None:
            assert processes_in(result.namespace) == [], f"{name}: processes outlived the sandbox"
        return result

    return run
