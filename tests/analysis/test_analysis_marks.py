"""Marks by the loss against lichess-style thresholds, never within the loss's own error; lichess's accuracy."""

import pytest

from bots.analysis import marks


@pytest.mark.parametrize(
    "points,stderr,expected",
    [
        (0.0, 0.0, None),
        (4.9, 0.1, None),
        (5.0, 0.1, "inaccuracy"),
        (9.9, 1.0, "inaccuracy"),
        (10.0, 1.0, "mistake"),
        (15.0, 1.0, "blunder"),
        (60.0, 2.0, "blunder"),
        (12.0, 7.0, None),  # within two standard errors: not marked, however large it looks
        (-20.0, 0.0, None),
    ],
)
def test_win_probability_marks(points, stderr, expected):
    assert marks.turn_mark(points, stderr) == expected


def test_coop_turns_take_the_worse_of_the_two_marks():
    assert marks.turn_mark(1.0, 0.5, cards_loss=3.2, cards_stderr=0.4) == "mistake"
    assert marks.turn_mark(16.0, 1.0, cards_loss=1.6, cards_stderr=0.2) == "blunder"
    assert marks.turn_mark(1.0, 0.5, cards_loss=6.0, cards_stderr=4.0) is None  # a rise within its error
    assert marks.turn_mark(1.0, 0.5, cards_loss=1.5, cards_stderr=0.1) == "inaccuracy"


def test_face_to_face_cards_left_mark_by_their_own_thresholds():
    thresholds = marks.cards_thresholds("face-to-face")
    inaccuracy, mistake, blunder = thresholds
    assert marks.turn_mark(0.5, 0.5, mistake, 0.1, thresholds) == "mistake"  # a lost game: no win probability to lose
    assert marks.turn_mark(0.5, 0.5, blunder + 1, 0.2, thresholds) == "blunder"
    assert marks.turn_mark(0.5, 0.5, (inaccuracy + mistake) / 2, 0.1, thresholds) == "inaccuracy"
    assert marks.turn_mark(0.5, 0.5, blunder + 1, (blunder + 1) / 1.9, thresholds) is None  # within its error
    assert marks.turn_mark(12.0, 1.0, inaccuracy, 0.1, thresholds) == "mistake"  # the worse of the two
    assert marks.effective_loss(0.0, 0.0, mistake, 0.0, thresholds) == pytest.approx(10.0)
    assert marks.points_per_card("face-to-face") == pytest.approx(10.0 / mistake)


def test_move_accuracy_is_lichess_formula():
    assert marks.move_accuracy(0) == pytest.approx(100.0, abs=1e-3)
    assert marks.move_accuracy(10) == pytest.approx(103.1668 * 2.718281828 ** (-0.4354) - 3.1669)
    assert marks.move_accuracy(200) == 0.0


def test_effective_loss_discounts_the_error_and_converts_cards():
    assert marks.effective_loss(6.0, 2.0) == 4.0
    assert marks.effective_loss(1.0, 2.0) == 0.0
    assert marks.effective_loss(1.0, 0.0, cards_loss=3.5, cards_stderr=0.5) == pytest.approx(10.0)


def test_a_blunder_costs_a_game_more_than_slips():
    steady = marks.game_accuracy([90.0] * 10)
    one_blunder = marks.game_accuracy([99.0] * 9 + [5.0])
    assert steady == pytest.approx(90.0)
    assert one_blunder < steady
    assert marks.game_accuracy([]) is None
