"""Which rule a refused turn breaks, checked against the independent rules model at every position of random
Extreme games: for each prefix of each turn played, every next play that could break a command, a basic rule
or both (every card in hand, every card already played, every command card, every trick card, on every pile
and on one that does not exist) is refused at the same play by both, and as a broken command exactly when
the model says a command is broken (RULES.md section 3: a play or turn end that breaks both is a broken
command)."""

from __future__ import annotations

import random
from typing import Any

from conftest import mirror_of
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_oracle import COOP_PILES, DEFAULT_TABLE, Broken, MirrorGame, Play, Policy, check_turn

import games

NO_SUCH_PILE = "up3"
OUTSIDE_THE_DECK = (1, 100)


def candidates(mirror: MirrorGame, prefix: list[Play]) -> set[Play]:
    """Next plays worth judging after `prefix`: whatever could break a command, a basic rule or both."""
    tops = dict(mirror.tops())
    for card, pile in prefix:
        tops[pile] = card
    cards = set(mirror.hands[mirror.to_move]) | set(DEFAULT_TABLE) | set(OUTSIDE_THE_DECK)
    cards |= {card for card, _ in prefix}
    cards |= {top + offset for top in tops.values() for offset in (-10, -1, 1, 10)}
    return {(card, pile) for card in cards for pile in (*COOP_PILES, NO_SUCH_PILE)}


def verdict(check: Any) -> tuple[bool, int | None, bool]:
    """(refused, play index, broken command) of a turn check that may raise."""
    try:
        check()
    except games.IllegalTurn as error:
        return True, error.play_index, isinstance(error, games.CommandBroken)
    except Broken as broken:
        return True, broken.play_index, broken.command
    return False, None, False


@settings(max_examples=20, deadline=None)
@given(players=st.integers(1, 3), seed=st.integers(0, 10**9), rng=st.integers(0, 2**32).map(random.Random))
def test_a_play_breaking_a_command_and_a_basic_rule_is_a_broken_command(
    players: int, seed: int, rng: random.Random
) -> None:
    state = games.new_game("extreme", players=players, seed=seed)
    mirror = mirror_of(state)
    policy = Policy(rng, care=0.9, eager=1)
    judged = 0
    for _ in range(10):
        if state.outcome is not None or mirror.uncertain:
            break
        plays, signals = policy.turn(mirror)
        for length in range(len(plays) + 1):
            prefix = plays[:length]
            for play in sorted(candidates(mirror, prefix)):
                turn = [*prefix, play]
                engine = verdict(lambda turn=turn: state.check(games.Turn.from_json([list(p) for p in turn])))
                model = verdict(lambda turn=turn: check_turn(mirror.rules, mirror.start(), turn))
                assert engine == model, f"{turn}: engine (refused, play, command) {engine}, model {model}"
                judged += 1
        state.push({"plays": [list(play) for play in plays], "signals": signals})
        mirror.apply(plays, signals)
    assert judged > 0
