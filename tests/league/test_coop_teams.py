"""Self-play teams: a seat per copy of the bot, and signals as the only channel between the seats."""

from __future__ import annotations

from pathlib import Path

import pytest

import bots.house
import bots.match
from league.arena.coop import challenges
from league.arena.play import matches

HOUSE = Path(bots.house.__file__).parent
SEASON_SEED = "5eed0c0b5eed0c0b5eed0c0b5eed0c0b"

# The house random bot, wrapped: it signals "jump" on up1 whenever silence will not be in force after its plays, and
# reports on stderr what its observations show of the other seats' signals.
SIGNALLER = (
    (HOUSE / "random_bot.py").read_bytes()
    + b"""

_inner_play = play


def play(observation):
    import sys

    commands = observation.get("commands") or {}
    table = commands.get("table") or {}
    seen = observation["signals"]
    if "silence" in (commands.get("in_force") or {}).values():
        print("S", end="", file=sys.stderr)
        if any(value != "none" for signals in seen for value in signals.values()):
            print("V", end="", file=sys.stderr)
    elif any(s.get("up1") == "jump" for k, s in enumerate(seen) if k != observation["seat"]):
        print("P", end="", file=sys.stderr)
    turn = _inner_play(observation)
    tops = {pile: state["top"] for pile, state in observation["piles"].items()}
    tops.update((pile, card) for card, pile in turn["plays"])
    if "silence" not in (table.get(str(top)) for top in tops.values()):
        turn["signals"] = {"up1": "jump"}
    return turn
"""
)


@pytest.mark.parametrize("game", ["the-game", "extreme"])
def test_each_seat_sees_its_partners_signals_and_silence_hides_them(alice, make_version, sent, settings, game):
    settings.ARENA_SANDBOX = True  # a sandboxed process per seat, each with its own stderr
    # seeded: over random deals, a dozen Extreme ones now and then never put a silence card on top (1 run in ~50)
    challenges.start_season(game, deals=12, chunk=12, team_sizes=[3], seed=SEASON_SEED)
    version = make_version(alice, "signaller", game=game, source=SIGNALLER)
    match = next(m for m in challenges.schedule(game) if m.ordered_versions() == [version])
    spec = matches.match_spec(match, [version])
    result = bots.match.run_match(spec)
    assert spec.sandbox and len(spec.bots) == 3 and len(result.stderr) == 3, "every seat is a player of its own"
    assert all(g.outcome.termination.value not in {"illegal-turn", "crash", "command-broken"} for g in result.games)
    for seat in range(3):
        seen = result.stderr[seat]
        assert "P" in seen, f"seat {seat} never saw a partner's signal"
        assert "V" not in seen, f"seat {seat} saw a signal while silence was in force"
    if game == "extreme":
        assert any("S" in text for text in result.stderr.values()), "silence never came: nothing tested"
    signals_logged = [turn.get("signals") for g in result.games for turn in g.log["turns"]]
    assert {"up1": "jump"} in signals_logged  # the log records each turn's signals
