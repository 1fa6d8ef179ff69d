"""Random games of all three games, played by the engine and by the independent rules model side by side.

After every turn: both agree on hands, piles, draw piles, signals, commands, who moves and how the game
ended; every card is in exactly one place; every play obeyed its pile's rule; hands stay within bounds;
no observation shows a card its seat cannot see. Every game ends within the bound that one card per turn
gives, and its log replays to the same outcome. Turns the model calls illegal are refused unchanged, at
the same play, and as a broken command exactly when the model says one is broken.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
from conftest import check_no_leak, mirror_of, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_oracle import (
    COOP_CARDS,
    F2F_CARDS,
    FACE_TO_FACE,
    Broken,
    Completions,
    MirrorGame,
    Policy,
    check_turn,
    direction,
    next_steps,
    owner,
    start_card,
    step,
)

import games
from games import Play

LOG_SCHEMA = json.loads((Path(games.__file__).parent / "schemas" / "game-log.schema.json").read_text())

game_setups = st.one_of(
    st.tuples(st.just("face-to-face"), st.just(2)),
    st.tuples(st.sampled_from(["the-game", "extreme"]), st.integers(1, 5)),
)
policies = st.builds(
    Policy,
    rng=st.integers(0, 2**32).map(random.Random),
    care=st.sampled_from([0.0, 0.6, 0.9, 1.0]),
    linger=st.sampled_from([0.0, 0.2, 0.5]),
    eager=st.sampled_from([-11, 1, 2, 4]),
)
seeds = st.one_of(st.integers(0, 10**9), st.text("abcdefgh:-0123456789", max_size=12))


def cards_of(game: str) -> range:
    return F2F_CARDS if game == FACE_TO_FACE else COOP_CARDS


def check_agreement(state: games.GameState, mirror: MirrorGame) -> None:
    """The engine's observations say what the model says, for every seat."""
    rules = mirror.rules
    for seat in range(rules.players):
        seen = state.observation(seat)
        json.dumps(seen)  # JSON-serialisable
        assert seen["seat"] == seat and seen["players"] == rules.players and seen["game"] == rules.game
        assert sorted(seen["hand"]) == sorted(mirror.hands[seat])
        assert seen["hand_sizes"] == [len(cards) for cards in mirror.hands]
        assert seen["hand_size"] == rules.hand_size
        assert seen["draw_pile_sizes"] == [len(pile) for pile in mirror.draws]
        assert {pile: info["history"] for pile, info in seen["piles"].items()} == mirror.piles
        for pile, info in seen["piles"].items():
            assert info["top"] == info["history"][-1]
            assert info["direction"] == direction(pile) and info["owner"] == owner(pile)
        assert seen["to_move"] == mirror.to_move
        if mirror.to_move is not None and seat == mirror.to_move:
            assert seen["min_plays"] == mirror.min_plays(seat)
        assert seen["signals"] == mirror.signals
        if rules.game == "extreme":
            shown = {pile: name for pile, name in seen["commands"]["in_force"].items() if name is not None}
            assert shown == mirror.in_force()
        else:
            assert seen["commands"] is None
        check_no_leak(seen)
    assert state.to_move == mirror.to_move
    if mirror.result is None:
        assert state.outcome is None
    else:
        outcome = state.outcome
        assert outcome is not None, f"the engine goes on, the model ended the game: {mirror.result}"
        termination, winner, score, seat = mirror.result
        assert (outcome.termination.value, outcome.winner, outcome.score) == (termination, winner, score)
        if seat is not None:
            assert outcome.seat == seat


def check_conservation(state: games.GameState, mirror: MirrorGame) -> None:
    """Every card is in exactly one place: a hand, a draw pile or a pile (judged on the engine's view,
    with the draw piles read from the logged decks: they are the last cards of each deck)."""
    log = state.log.to_json()
    seen = [state.observation(seat) for seat in range(mirror.rules.players)]
    placed: Counter[int] = Counter()
    for pile, info in seen[0]["piles"].items():
        assert info["history"][0] == start_card(mirror.rules.game, pile)
        placed.update(info["history"][1:])
    in_hands = Counter(card for view in seen for card in view["hand"])
    sizes = seen[0]["draw_pile_sizes"]
    in_draw = Counter(card for deck, size in zip(log["decks"], sizes, strict=True) for card in deck[len(deck) - size :])
    everything = placed + in_hands + in_draw
    copies = 2 if mirror.rules.game == FACE_TO_FACE else 1
    assert everything == Counter({card: copies for card in cards_of(mirror.rules.game)})


def check_pile_rules(mirror: MirrorGame) -> None:
    """Read each pile's history against who placed each card."""
    for pile, history in mirror.piles.items():
        for below, card, seat in zip(history[:-1], history[1:], mirror.placed_by[pile], strict=True):
            up = direction(pile) == "up"
            if owner(pile) not in (None, seat):
                assert card < below if up else card > below
            else:
                assert (card > below or card == below - 10) if up else (card < below or card == below + 10)


def check_hand_bounds(state: games.GameState, mirror: MirrorGame) -> None:
    for size in state.observation(0)["hand_sizes"]:
        assert 0 <= size <= mirror.rules.hand_size


def play_out(
    state: games.GameState, policy: Policy, mirror: MirrorGame, try_illegal: float, end_on_illegal: bool
) -> int:
    """Play the game to its end with `policy`, now and then submitting a mutated turn (and, with
    `end_on_illegal`, ending the game with the first one refused); return the number of turns played."""
    bound = len(cards_of(mirror.rules.game)) * (2 if mirror.rules.game == FACE_TO_FACE else 1)
    turns = 0
    check_agreement(state, mirror)
    while state.outcome is None and not mirror.uncertain:
        assert turns < bound, f"no end after {turns} turns, though every turn places a card"
        played = False
        if policy.rng.random() < try_illegal:
            played, refused = probe(state, policy, mirror)
            if refused and end_on_illegal:
                raw, error = refused
                seat = state.to_move
                state.reject(raw, error)
                mirror.forfeit(seat, "command-broken" if isinstance(error, games.CommandBroken) else "illegal-turn")
                check_agreement(state, mirror)
                break
        if not played:
            plays, signals = policy.turn(mirror)
            state.push({"plays": [list(play) for play in plays], "signals": signals})
            mirror.apply(plays, signals)
        turns += 1
        check_agreement(state, mirror)
        check_conservation(state, mirror)
        check_pile_rules(mirror)
        check_hand_bounds(state, mirror)
    return turns


def probe(
    state: games.GameState, policy: Policy, mirror: MirrorGame
) -> tuple[bool, tuple[Any, games.IllegalTurn] | None]:
    """Submit a mutated turn: the engine must accept it exactly when the model does, and when both refuse
    it they must blame the same play and agree whether a command is broken. Return (whether it was played,
    (turn, error) if it was refused)."""
    plays, _ = policy.turn(mirror)
    variant = policy.mutate(mirror, plays)
    raw = [list(play) for play in variant]
    try:
        done = check_turn(mirror.rules, mirror.start(), variant)
    except Broken as broken:
        before = snapshot(state)
        try:
            state.push(raw)
        except games.IllegalTurn as error:
            assert snapshot(state) == before
            assert error.play_index == broken.play_index, f"{variant}: engine says {error}, model says {broken}"
            command = isinstance(error, games.CommandBroken)
            assert command == broken.command, f"{variant}: engine says {error!r}, model says {broken!r}"
            return False, (raw, error)
        raise AssertionError(f"the engine accepted {variant}, which the rules forbid ({broken})") from None
    if done.ambiguous:
        return False, None
    state.push(raw)
    mirror.apply(variant)
    return True, None


def new_state(game: str, players: int, seed: Any, explicit_decks: bool) -> games.GameState:
    """A seeded game, or one dealt from decks and a start seat chosen here."""
    if not explicit_decks:
        return games.new_game(game, players=players, seed=seed)
    rng = random.Random(str(seed))
    decks = [rng.sample(cards_of(game), len(cards_of(game))) for _ in range(2 if game == FACE_TO_FACE else 1)]
    return games.new_game(game, players=players, seed=seed, decks=decks, start_seat=rng.randrange(players))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=game_setups,
    seed=seeds,
    policy=policies,
    try_illegal=st.sampled_from([0.0, 0.3]),
    end_on_illegal=st.booleans(),
    explicit_decks=st.booleans(),
)
def test_random_games_follow_the_rules_and_replay(
    setup: tuple[str, int], seed: Any, policy: Policy, try_illegal: float, end_on_illegal: bool, explicit_decks: bool
) -> None:
    game, players = setup
    state = new_state(game, players, seed, explicit_decks)
    mirror = mirror_of(state)
    turns = play_out(state, policy, mirror, try_illegal, end_on_illegal)
    if mirror.uncertain:
        return
    assert state.outcome is not None
    log = json.loads(json.dumps(state.log.to_json()))
    assert len(log["turns"]) == turns
    jsonschema.validate(log, LOG_SCHEMA)
    assert games.replay(log) == state.outcome


@settings(max_examples=15, deadline=None)
@given(setup=game_setups, seed=seeds)
def test_legal_plays_are_the_plays_the_rules_allow(setup: tuple[str, int], seed: Any) -> None:
    """legal_plays(prefix) offers only plays the rules allow next, and every play that leads to a legal
    turn (a play that fits but dooms the turn, like an uncoverable skull, may go either way)."""
    game, players = setup
    state = games.new_game(game, players=players, seed=seed)
    mirror = mirror_of(state)
    completes = Completions(mirror.rules)
    policy = Policy(random.Random(str(seed)), care=0.9)
    for _ in range(12):
        if state.outcome is not None:
            break
        plays, signals = policy.turn(mirror)
        part = mirror.start()
        for index, play in enumerate(plays):
            engine = {(p.card, p.pile) for p in state.legal_plays([Play(*done) for done in plays[:index]])}
            fitting = {option for option, _ in next_steps(mirror.rules, part, allow_ambiguous=True)}
            leading = {option for option, after in next_steps(mirror.rules, part, False) if completes(after)}
            assert leading <= engine <= fitting
            part = step(mirror.rules, part, *play)
        state.push({"plays": [list(play) for play in plays], "signals": signals})
        mirror.apply(plays, signals)
