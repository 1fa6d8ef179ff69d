"""`python -m bots.selfcheck`: can this machine (or container) run uploaded bots in the sandbox?

Plays one game of Face to Face between the greedy house bot, run from its file in the bubblewrap sandbox
exactly as an upload would be, and the random house bot. Prints "OK ..." and exits 0, or prints
"FAILED: <reason>" and exits 1. docs/operators.md says what a container needs for it to pass.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import games  # first of all: from a checkout without the dependencies, the command runs in .venv

# isort: split
import bots.house
from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.sandbox import cgroups, leftovers, workdirs
from bots.sandbox.bwrap import SandboxUnavailable, scratch_root
from bots.sandbox.limits import SandboxLimits

SANDBOXED_BOT = Path(bots.house.__file__).with_name("greedy.py")
HINT = "see docs/operators.md, 'Deploying with Docker', for what the sandbox needs from the host and the container"


def check(startup_seconds: float, limits: SandboxLimits | None = None) -> str:
    """A one-line description of the sandboxed game (run under `limits`, the defaults if None); raises
    SandboxUnavailable naming what failed."""
    spec = MatchSpec(
        game="face-to-face",
        bots=[BotSpec(str(SANDBOXED_BOT), name="sandboxed greedy"), BotSpec("house:random")],
        games=1,
        seed="sandbox-check",
        time_control=TimeControl(turn=5.0, bank=10.0, startup=startup_seconds),
        sandbox=True,
        sandbox_limits=limits or SandboxLimits(),
    )
    folders = _own_sandbox_folders()
    game = run_match(spec).games[0]
    workdirs.remove_idle()  # kept for the upload's next sandbox otherwise
    left = sorted(_own_sandbox_folders() - folders)
    sandboxed_seat = game.seat_bots.index(0)
    outcome = game.outcome
    if outcome.seat == sandboxed_seat and outcome.termination not in (
        games.Termination.STUCK,
        games.Termination.ALL_CARDS_PLAYED,
    ):
        stderr = game.stderr.get(0, "").strip()
        raise SandboxUnavailable(
            f"the sandboxed bot failed: {outcome.termination}: {outcome.detail}" + (f"\n{stderr}" if stderr else "")
        )
    uid, gid, _ = SandboxLimits().identity()
    if left:
        # it played, but every match would leave its bots' files behind (in memory, on /dev/shm) for good
        raise SandboxUnavailable(
            f"the sandbox's folder {left[0]} was left behind: the runner cannot remove the bot's files once they are "
            f"uid {uid}'s (a root runner needs CAP_DAC_OVERRIDE for that)"
        )
    if cgroups.available():
        groups = "each sandbox gets its own cgroups"
        if not cgroups.favors_moves():
            groups += "; " + cgroups.SLOW_MOVES
    else:
        groups = (
            "no cgroups for the sandboxes: the league refuses uploaded bots "
            f"unless {cgroups.OPT_OUT_SETTING}=true (docs/operators.md)"
        )
    return (
        f"played one game in the sandbox ({game.turns} turns, {outcome.termination}); bots run as uid {uid}:{gid}; "
        + groups
    )


def _own_sandbox_folders() -> set[str]:
    """The private folders of this process's sandboxes that exist now."""
    prefix = leftovers.own_prefix(leftovers.SANDBOX_PREFIX)
    return {str(entry) for entry in Path(scratch_root()).glob(f"{prefix}*")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.selfcheck", description=__doc__.splitlines()[0])
    parser.add_argument("--startup", type=float, default=30.0, help="seconds the bot may take to start (default 30)")
    args = parser.parse_args(argv)
    try:
        summary = check(args.startup)
    except SandboxUnavailable as error:
        print(f"FAILED: {error}\n{HINT}")
        return 1
    except OSError as error:  # e.g. a capability the sandbox launcher needs is missing
        print(f"FAILED: {type(error).__name__}: {error}\n{HINT}")
        return 1
    print(f"OK: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
