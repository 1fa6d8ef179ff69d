"""A logged game's position before any turn (position_before), and a position with its hidden cards placed
otherwise (with_hidden_cards): the engine's pieces for replaying a turn locally and for determinized search."""

import pytest

import games
from bots.house import load_house_bot
from bots.match import BotSpec, MatchSpec, run_match


def logged_game(game, bots, seed="pos", players=None):
    spec = MatchSpec(game, [BotSpec(bot) for bot in bots], games=1, seed=seed, players=players)
    return run_match(spec).games[0].log


@pytest.mark.parametrize(
    "game,bots", [("face-to-face", ["house:greedy", "house:random"]), ("extreme", ["house:greedy"] * 3)]
)
def test_the_position_before_a_turn_is_the_replay_up_to_it(game, bots):
    log = logged_game(game, bots, players=len(bots) if game != "face-to-face" else None)
    state = games.new_game(
        game, log["options"]["players"], log["seed"], start_seat=log["start_seat"], decks=log["decks"],
        hand_size=log["options"]["hand_size"], command_table=log["options"]["command_table"],
    )  # fmt: skip
    for number, entry in enumerate(log["turns"], start=1):
        position = games.position_before(log, number)
        assert position.turn_number == number - 1 and position.to_move == entry["seat"]
        assert position.hands == state.hands and position.tops == state.tops and position.piles == state.piles
        state.push({"plays": entry["plays"], "signals": entry["signals"]})
    last = games.position_before(log, len(log["turns"]) + 1)
    assert last.outcome is not None or log["rejected_turn"] is not None


@pytest.mark.parametrize("turn", [0, -1, 10_000, True, "3"])
def test_a_turn_outside_the_log_is_refused_with_its_range(turn):
    log = logged_game("face-to-face", ["house:greedy", "house:greedy"])
    with pytest.raises(ValueError, match=f"it has turns 1 to {len(log['turns'])}"):
        games.position_before(log, turn)


def test_a_tampered_log_gives_no_position():
    log = logged_game("face-to-face", ["house:greedy", "house:greedy"])
    log["turns"][3]["plays"][0][0] = 99
    with pytest.raises(games.LogMismatch):
        games.position_before(log, 2)


def play_some(state, turns):
    bot = load_house_bot("greedy")
    for _ in range(turns):
        state.push(bot.play(state.observation(state.to_move)))


def test_face_to_face_hidden_cards_move_but_the_public_position_stays():
    state = games.new_game("face-to-face", seed="hidden", start_seat=0)
    play_some(state, 6)
    hands = [list(reversed(state.hands[0])), state.draw_piles_reversed[1][:6]]
    draws = [state.draw_piles_reversed[0][::-1], state.hands[1] + state.draw_piles_reversed[1][6:]]
    copy = state.with_hidden_cards(hands, draws)
    assert copy.hands == hands and [pile[::-1] for pile in copy.draw_piles_reversed] == draws
    assert copy.tops == state.tops and copy.piles == state.piles and copy.to_move == state.to_move
    assert copy.turn_number == state.turn_number and copy.log.turns == []
    play_some(copy, 4)  # the copy plays on alone
    assert len(copy.log.turns) == 4 and state.turn_number == 6 and state.hands[0] != copy.hands[0]


def test_face_to_face_hidden_cards_must_be_each_seats_own():
    state = games.new_game("face-to-face", seed="hidden", start_seat=0)
    play_some(state, 4)
    played = state.piles["p0.up"][1]  # a card seat 0 placed: it cannot be in its hand again
    hand = [played, *state.hands[0][1:]]
    draws = [pile[::-1] for pile in state.draw_piles_reversed]
    with pytest.raises(ValueError, match="seat 0"):
        state.with_hidden_cards([hand, state.hands[1]], draws)


def test_coop_hidden_cards_keep_hand_sizes_and_the_cards_not_placed():
    state = games.new_game("the-game", 3, seed="hidden")
    play_some(state, 5)
    pool = [card for hand in state.hands for card in hand] + state.draw_pile_reversed
    sizes = [len(hand) for hand in state.hands]
    hands, rest = [], sorted(pool)
    for size in sizes:
        hands.append(rest[:size])
        rest = rest[size:]
    copy = state.with_hidden_cards(hands, [rest])
    assert copy.hands == hands and copy.draw_pile_reversed == rest[::-1] and copy.tops == state.tops
    assert copy.signals == state.signals and copy.signals is not state.signals
    with pytest.raises(ValueError, match="hand its size"):
        state.with_hidden_cards([hands[0] + hands[1][:1], hands[1][1:], hands[2]], [rest])
    with pytest.raises(ValueError):
        state.with_hidden_cards(hands, [rest[1:] + [1]])
