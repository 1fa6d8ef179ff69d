"""The analysis of a game: a planted blunder is marked, the expert's own play is not, nothing depends on hidden cards,
and the same seed gives the same figures."""

import json
import random

import pytest

import games
from bench.analysis import log_planted_at, planted_log
from bots.analysis.analyse import analyse_log, analyse_turn
from bots.analysis.rollouts import Precision
from bots.match import BotSpec, MatchSpec, run_match

QUICK = Precision(max_samples=24, min_samples=8)
TURN_KEYS = {"turn", "seat", "played", "best", "before", "after", "best_value", "loss", "stderr", "mark"}


def logs(game, bots, count, seed, players=None):
    spec = MatchSpec(game, [BotSpec(bot) for bot in bots], games=count, seed=seed, players=players)
    return [result.log for result in run_match(spec).games]


@pytest.mark.parametrize("game,players,seed", [("face-to-face", 2, "p:1"), ("the-game", 1, "p:2")])
def test_a_planted_wasteful_turn_is_a_mistake_or_a_blunder(game, players, seed):
    log, turn = planted_log(game, players, seed, random.Random(seed))
    analysed = analyse_log(log, "t", QUICK, turns={turn}).turns
    assert [entry.turn for entry in analysed] == [turn]
    entry = analysed[0]
    assert entry.mark in ("mistake", "blunder"), entry
    assert entry.best != entry.played and entry.loss > 0 and entry.best_value == entry.before > entry.after


@pytest.mark.parametrize("seed,turn", [("planted:face-to-face:141", 25), ("planted:face-to-face:89", 26)])
def test_a_wasteful_turn_in_a_lost_face_to_face_game_is_marked_by_the_cards_it_throws_away(seed, turn):
    """Two plants of the bench's own in games the mover had all but lost: the win probability has no 10 points left
    to lose, but the mover ends up stuck with many more cards."""
    log, planted = log_planted_at("face-to-face", 2, seed, turn)
    entry = analyse_log(log, "t", QUICK, turns={planted}).turns[0]
    assert entry.before < 0.15 and 100 * entry.loss < 10, "lost already: no mistake by win probability alone"
    assert entry.cards_loss >= 5 and entry.cards_loss > 2 * entry.cards_stderr
    assert entry.mark == "blunder" and entry.accuracy < 30
    assert entry.cards_after > entry.cards_best == entry.cards_before


def test_the_experts_own_turns_are_never_marked():
    log = logs("face-to-face", ["house:expert", "house:expert"], 1, "sound")[0]
    analysis = analyse_log(log, "t", QUICK, turns=set(range(1, 16)))
    assert len(analysis.turns) == 15
    for entry in analysis.turns:
        assert entry.mark is None and entry.best == entry.played and entry.loss == 0.0
        assert entry.before == entry.after == entry.best_value and entry.accuracy == pytest.approx(100.0, abs=0.01)
    assert analysis.accuracy[0] == pytest.approx(100.0, abs=0.01)


def test_json_has_the_issues_keys_and_the_same_seed_gives_the_same_analysis():
    log = logs("face-to-face", ["house:greedy", "house:expert"], 1, "json")[0]
    first = analyse_log(log, "s", QUICK, turns={1, 2, 3, 4}).to_json()
    assert json.loads(json.dumps(first)) == first
    assert set(first) >= {"game", "seats", "turns", "accuracy"} and set(first["accuracy"]) == {"0", "1"}
    for entry in first["turns"]:
        assert set(entry) >= TURN_KEYS and entry["mark"] in (None, "inaccuracy", "mistake", "blunder")
        assert entry["stderr"] >= 0 and 0 <= entry["after"] <= 1
    assert analyse_log(log, "s", QUICK, turns={1, 2, 3, 4}).to_json() == first
    assert analyse_log(log, "s", QUICK, turns={3}).to_json()["turns"] == [first["turns"][2]]  # turns are independent
    assert analyse_log(log, "other", QUICK, turns={1, 2, 3, 4}).to_json()["turns"] != first["turns"]


@pytest.mark.parametrize("game,players,most", [("the-game", 2, 98), ("face-to-face", 2, 58)])
def test_turns_carry_expected_cards_left(game, players, most):
    log = logs(game, ["house:greedy"] * 2, 1, "coop", players=players)[0]
    entry = analyse_log(log, "s", QUICK, turns={5}).to_json()["turns"][0]
    assert {"cards_before", "cards_after", "cards_best", "cards_loss", "cards_stderr"} <= set(entry)
    assert 0 < entry["cards_after"] <= most and entry["cards_stderr"] >= 0


@pytest.mark.parametrize("game,players", [("face-to-face", None), ("extreme", 3)])
def test_the_analysis_never_sees_a_hidden_card(game, players):
    """The same public position with every card the mover cannot see placed otherwise gets the same analysis."""
    bots = ["house:greedy"] * (2 if game == "face-to-face" else players)
    log = logs(game, bots, 1, "hidden", players=players)[0]
    number = min(6, len(log["turns"]))
    state = games.position_before(log, number)
    entry = log["turns"][number - 1]
    played = games.Turn.from_json({"plays": entry["plays"], "signals": entry["signals"]})
    mover = state.to_move
    if game == "face-to-face":
        other = 1 - mover
        pool = (state.hands[other] + state.draw_piles_reversed[other])[::-1]
        held = len(state.hands[other])
        hands, draws = list(state.hands), list(state.draw_piles_reversed)
        hands[other], draws[other] = pool[:held], pool[held:]
        draws[mover] = draws[mover][::-1]
    else:
        pool = [c for seat, hand in enumerate(state.hands) if seat != mover for c in hand] + state.draw_pile_reversed
        pool.reverse()
        hands = []
        for seat, hand in enumerate(state.hands):
            hands.append(hand if seat == mover else pool[: len(hand)])
            pool = pool if seat == mover else pool[len(hand) :]
        draws = [pool]
    moved = state.with_hidden_cards(hands, draws)
    assert analyse_turn(state, number, played, "h", QUICK) == analyse_turn(moved, number, played, "h", QUICK)
