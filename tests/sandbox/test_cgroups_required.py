"""Where cgroups are required (the league's uploaded bots) and this runner cannot create them, no sandbox starts."""

from __future__ import annotations

import os

import pytest

from bots import selfcheck
from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.sandbox import SandboxedPlayer, SandboxLimits, cgroups
from bots.sandbox.cgroups import CgroupsUnavailable

BOT = "def play(observation):\n    return {'plays': []}\n"


@pytest.fixture
def no_cgroups(monkeypatch):
    """This host as a container sees it: creating a cgroup gives nothing."""
    monkeypatch.setattr(cgroups, "create", lambda *args, **kwargs: None)


def test_a_sandbox_that_requires_cgroups_is_not_started_without_them(sandbox_works, no_cgroups, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    player = SandboxedPlayer(bot, limits=SandboxLimits(require_cgroups=True))
    with pytest.raises(CgroupsUnavailable, match=f"without cgroups: .*Set {cgroups.OPT_OUT_SETTING}=true") as caught:
        player.start(5)
    why = "no writable tree" if os.geteuid() == 0 else "only a root runner creates them"
    assert why in str(caught.value)
    assert player.sandbox_pid is None
    player.close()


def test_without_the_requirement_the_sandbox_runs_on_rlimits(sandbox_works, no_cgroups, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    with SandboxedPlayer(bot) as player:
        player.start(5)
        assert player.play({}, 2)[0] == {"plays": []}
        assert player._sandbox.cgroup is None


def test_house_bots_play_where_uploads_would_be_refused(no_cgroups):
    spec = MatchSpec(
        game="face-to-face",
        bots=[BotSpec("house:greedy"), BotSpec("house:random")],
        time_control=TimeControl(turn=5.0, bank=10.0, startup=10.0),
        sandbox_limits=SandboxLimits(require_cgroups=True),
    )
    assert len(run_match(spec).games) == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root runner creates cgroups")
def test_a_root_runner_with_cgroups_starts_a_sandbox_that_requires_them(sandbox_works, tmp_path):
    if not cgroups.available():
        pytest.skip("this host offers no cgroups to the runner")
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    with SandboxedPlayer(bot, limits=SandboxLimits(require_cgroups=True)) as player:
        player.start(5)
        assert player._sandbox.cgroup is not None
        assert player.play({}, 2)[0] == {"plays": []}


def test_requiring_cgroups_while_not_using_them_is_refused():
    with pytest.raises(ValueError, match="require_cgroups needs use_cgroups"):
        SandboxLimits(use_cgroups=False, require_cgroups=True)
    with pytest.raises(ValueError, match="require_cgroups must be True or False"):
        SandboxLimits(require_cgroups=1)


def test_the_sandbox_check_says_whether_uploads_would_be_refused(sandbox_works, no_cgroups):
    summary = selfcheck.check(startup_seconds=30)
    assert summary.startswith("played one game in the sandbox")
    assert f"the league refuses uploaded bots unless {cgroups.OPT_OUT_SETTING}=true" in summary
