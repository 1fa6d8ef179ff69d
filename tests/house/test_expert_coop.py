"""The co-op expert (bots/house/expert_coop.py): legal turns in seeded games of The Game and Extreme with
1-5 players, every Extreme command in positions built for it, its signals, and its time per turn."""

from __future__ import annotations

import ast
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

import games
from bots.house import fresh_module

MODULE = "bots.house.expert_coop"
HAND_SIZES = {1: 8, 2: 7, 3: 6, 4: 6, 5: 6}


def new_bot() -> ModuleType:
    return fresh_module(MODULE)


def position(game: str, hands: Sequence[Sequence[int]], draws: Sequence[int], turns: Sequence[str]) -> games.GameState:
    """A game whose seats hold `hands` (seat 0 moves first) and draw `draws` next, after the scripted `turns`
    (text form, e.g. ``90>up1 92>up2``) have been played; the rest of the deck follows in ascending order."""
    players = len(hands)
    assert all(len(hand) == HAND_SIZES[players] for hand in hands)
    first = [card for hand in hands for card in hand] + list(draws)
    assert len(set(first)) == len(first), "a card is dealt twice"
    deck = first + [card for card in range(2, 100) if card not in set(first)]
    state = games.new_game(game, players=players, seed="expert-coop-test", decks=[deck], start_seat=0)
    for text in turns:
        state.push(games.Turn.parse(text))
    return state


def bot_turn(state: games.GameState) -> games.Turn:
    """The expert's turn for the seat to move, checked by the engine (pushed) and returned."""
    turn = games.Turn.from_json(new_bot().play(state.observation(state.to_move)))
    state.push(turn)
    return turn


def play_game(
    game: str, players: int, seed: int, timings: list[float], cpu: list[float] | None = None
) -> games.GameState:
    """Play a game of expert bots; `timings` gets each turn's wall time, `cpu` its CPU time."""
    bots = [new_bot() for _ in range(players)]
    state = games.new_game(game, players=players, seed=seed)
    while state.outcome is None:
        seat = state.to_move
        observation = state.observation(seat)
        started, started_cpu = time.perf_counter(), time.thread_time()
        raw = bots[seat].play(observation)
        timings.append(time.perf_counter() - started)
        if cpu is not None:
            cpu.append(time.thread_time() - started_cpu)
        try:
            state.push(games.Turn.from_json(raw))
        except games.IllegalTurn as error:
            pytest.fail(f"{game} {players}p seed {seed} seat {seat}: {raw} rejected ({error.rule}): {error}")
    return state


# ---- whole games --------------------------------------------------------------------------------------


@pytest.mark.slow  # the quick lane keeps tests/house/test_house_bots.py's shorter run of the expert's co-op games
@pytest.mark.parametrize("game", ["the-game", "extreme"])
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_plays_only_legal_turns_to_the_end(game: str, players: int) -> None:
    timings: list[float] = []
    cpu: list[float] = []
    for seed in range(30):
        state = play_game(game, players, seed, timings, cpu)
        assert state.outcome.termination in (games.Termination.ALL_CARDS_PLAYED, games.Termination.STUCK)
        assert state.outcome.score == state.cards_not_placed()
    # What holds at any load: a typical turn needs little CPU, and no turn searches far past its 0.1 s of wall time
    # (a busy machine only shortens the search). bench/expert_coop.py measures the real figures.
    assert statistics.median(cpu) < 0.05
    assert max(timings) < 1.0


@pytest.mark.slow
def test_wins_some_solo_games_and_leaves_few_cards() -> None:
    scores = [play_game("the-game", 1, seed, []).outcome.score for seed in range(40)]
    assert scores.count(0) >= 2
    assert statistics.fmean(scores) < 14


def test_stops_searching_at_its_time_limit() -> None:
    # two close runs of four: many orderings and extra plays worth trying
    state = position("the-game", [[12, 15, 19, 23, 81, 84, 88, 93]], [], [])
    unlimited, hurried = new_bot(), new_bot()
    unlimited.THE_GAME_TUNING = unlimited.Tuning(time_limit=30.0)  # never reached, however busy the machine
    hurried.THE_GAME_TUNING = hurried.Tuning(time_limit=0.0)
    observation = state.observation(0)
    slow = unlimited.Planner(observation, unlimited.THE_GAME_TUNING)
    slow.best_plays()
    quick = hurried.Planner(observation, hurried.THE_GAME_TUNING)
    plays = quick.best_plays()
    assert not slow._timed_out and quick._timed_out
    assert quick._nodes < slow._nodes / 5  # the first clock reading ends it, once some legal turn is in hand
    state.push(games.Turn.from_json({"plays": [[card, quick.names[pile]] for card, pile in plays]}))


def test_keeps_no_state_between_turns() -> None:
    bot = new_bot()
    state = games.new_game("the-game", players=2, seed=5)
    observation = state.observation(state.to_move)
    first = bot.play(observation)
    for seed in range(3):  # other games in between must not change the answer
        play_game("the-game", 3, seed, [])
    assert bot.play(observation) == first


def test_rejects_other_games() -> None:
    observation = games.new_game("face-to-face", seed=1).observation(0)
    with pytest.raises(ValueError, match="face-to-face"):
        new_bot().play(observation)


def test_imports_only_the_standard_library() -> None:
    source = Path(fresh_module(MODULE).__file__).read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "dataclasses", "math", "time", "typing"}


# ---- turn planning ------------------------------------------------------------------------------------

# Openings that drive the piles away from the middle so that only the cards a test names can be played.
CLOSED = "90>up1 92>up2 12>down1 10>down2"  # nothing from 13 to 89 fits, except tricks (80, 82, 22, 20)
OPEN_DOWN = "90>up1 92>up2 94>down1 10>down2"  # down1 takes anything below 94


def cards_and_piles(turn: games.Turn) -> list[tuple[int, str]]:
    return [(play.card, play.pile) for play in turn.plays]


def test_takes_a_backwards_trick_chain() -> None:
    # up1 shows 27; 17 and 7 go on it backwards, one after the other
    state = position(
        "the-game", [[27, 92, 94, 10, 17, 7, 30, 40]], [50, 51, 53, 54], ["27>up1 92>up2 94>down1 10>down2"]
    )
    plays = cards_and_piles(bot_turn(state))
    assert (17, "up1") in plays and (7, "up1") in plays
    assert plays.index((17, "up1")) < plays.index((7, "up1"))


def test_sets_up_a_trick_inside_the_turn() -> None:
    # only 60 and 50 fit (on up1 at 41): 60 first, then 50 by the trick, leaves the pile at 50
    state = position(
        "the-game", [[41, 92, 12, 10, 60, 50, 30, 29]], [33, 34, 36, 37], ["41>up1 92>up2 12>down1 10>down2"]
    )
    assert cards_and_piles(bot_turn(state)) == [(60, "up1"), (50, "up1")]


def test_places_every_card_it_can_in_one_turn_once_the_solo_draw_pile_is_empty() -> None:
    cards = list(range(2, 100))
    easy_decks = [cards, cards[::-1], cards[::2] + cards[1::2], cards[1::2][::-1] + cards[::2][::-1]]
    for deck in easy_decks:
        state = games.new_game("the-game", players=1, seed="easy", decks=[deck], start_seat=0)
        bot = new_bot()
        turns_on_empty = 0
        while state.outcome is None:
            observation = state.observation(0)
            turns_on_empty += observation["draw_pile_sizes"][0] == 0
            state.push(games.Turn.from_json(bot.play(observation)))
        # a second turn on an empty draw pile would mean the first left playable cards in hand
        assert turns_on_empty == 1, f"deck {deck[:8]}...: {turns_on_empty} turns after the draw pile ran out"
        assert state.outcome.score == 0


# ---- Extreme commands in constructed positions ----------------------------------------------------------


def test_stop_card_makes_a_one_card_turn() -> None:
    # only 4 (stop) fits anywhere, and a 1-card turn is legal only because it is a stop card
    state = position("extreme", [[90, 92, 12, 10, 4, 30, 31, 33]], [34, 36, 37, 38], [CLOSED])
    assert [play.card for play in bot_turn(state).plays] == [4]


def test_never_plays_after_a_stop_card() -> None:
    # 79, 78, 76 could all go on down1, but 77 (stop) ends the turn wherever it comes
    state = position("extreme", [[90, 92, 94, 10, 79, 78, 77, 76]], [30, 31, 33, 34], [OPEN_DOWN])
    cards = [play.card for play in bot_turn(state).plays]
    assert 77 not in cards[:-1]


def test_covers_its_skull_on_the_same_pile() -> None:
    # the only legal turn: skull 7 on a descending pile, then 5 on top of it
    state = position("extreme", [[90, 92, 12, 10, 7, 5, 30, 31]], [33, 34, 36, 37], [CLOSED])
    plays = cards_and_piles(bot_turn(state))
    assert [card for card, _ in plays] == [7, 5]
    assert plays[0][1] == plays[1][1]


def test_three_means_exactly_three_plays() -> None:
    # 86 85 84 83 82 fit down1 one after the other, but 84 (three) caps the turn at exactly 3 plays
    state = position("extreme", [[90, 92, 94, 10, 86, 85, 84, 83]], [82, 30, 31, 33], [OPEN_DOWN])
    cards = [play.card for play in bot_turn(state).plays]
    assert 84 not in cards or len(cards) == 3


def test_sends_no_signals_while_silence_is_on_top() -> None:
    # seat 0 leaves silence (88) on up1; seat 1 cannot cover it (nothing above 88, no 78)
    hands = [[88, 70, 40, 41, 43, 44, 45], [12, 13, 15, 16, 17, 19, 20]]
    state = position("extreme", hands, [], ["70>up1 88>up1"])
    turn = bot_turn(state)
    assert all(value == "none" for _, value in turn.signals)
    assert state.tops["up1"] == 88


def test_uses_no_trick_while_no_trick_is_on_top() -> None:
    # no-trick (91) on up1, which nothing in hand can cover: 40 would be a trick on up2 at 50, but is forbidden
    opening = "50>up2 91>up1 12>down1 10>down2"
    state = position("extreme", [[50, 91, 12, 10, 40, 61, 62, 64]], [65, 66, 68, 69], [opening])
    plays = cards_and_piles(bot_turn(state))
    assert (40, "up2") not in plays
    assert state.tops["up1"] == 91


def test_plays_one_pile_while_one_pile_is_on_top() -> None:
    # one-pile (95) on up1, which nothing in hand can cover: every play must go on the first play's pile
    opening = "50>up2 12>down1 10>down2 95>up1"
    state = position("extreme", [[50, 12, 10, 95, 61, 62, 64, 9]], [8, 65, 66, 68], [opening])
    assert len({pile for _, pile in cards_and_piles(bot_turn(state))}) == 1
    assert state.tops["up1"] == 95


def test_covers_a_draw_one_it_can_cover_for_free() -> None:
    # draw-one (98) on down1 would leave the hand short; 97 covers it without wasting a card
    state = position("extreme", [[98, 2, 97, 96, 40, 41, 43, 44]], [45, 47, 48, 50], ["98>down1 2>up1"])
    assert len(state.hands[0]) == 7  # the opening drew exactly one card
    bot_turn(state)
    assert state.tops["down1"] != 98
    assert len(state.hands[0]) == 8


# ---- signals --------------------------------------------------------------------------------------------


def test_avoids_a_pile_its_partner_asked_to_keep_off() -> None:
    # up1 and up2 are alike, but seat 0 asked to keep off up1
    hands = [[99, 98, 50, 51, 52, 53, 54], [15, 16, 40, 41, 60, 61, 62]]
    state = position("the-game", hands, [], ["99>down1 98>down1 | up1=keep-off"])
    piles = {pile for _, pile in cards_and_piles(bot_turn(state))}
    assert "up1" not in piles


def test_signals_keep_off_only_where_it_holds_a_close_card() -> None:
    hands = [[2, 99, 5, 50, 51, 60, 61], [20, 21, 22, 23, 24, 25, 26]]
    state = position("the-game", hands, [], [])
    turn = bot_turn(state)
    assert {pile for pile, _ in turn.signals} == {"up1", "up2", "down1", "down2"}
    for pile, value in turn.signals:
        if value == "keep-off":
            top = state.tops[pile]
            assert any((card > top) if pile.startswith("up") else (card < top) for card in state.hands[0])
