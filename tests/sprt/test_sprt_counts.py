"""Pair and deal classes, and the counts they add up to."""

import pytest

from bots.sprt import PENTANOMIAL, TRINOMIAL, Counts
from bots.sprt.counts import deal_class, pair_class, pentanomial, trinomial


@pytest.mark.parametrize(
    ("first", "second", "cell"),
    [(0, 0, 0), (0, 0.5, 1), (0.5, 0, 1), (1, 0, 2), (0, 1, 2), (0.5, 0.5, 2), (1, 0.5, 3), (0.5, 1, 3), (1, 1, 4)],
)
def test_a_pair_falls_in_the_class_of_its_score(first, second, cell):
    assert pair_class(first, second) == cell


def test_a_game_score_is_a_win_a_draw_or_a_loss():
    with pytest.raises(ValueError, match="0, 1/2 or 1"):
        pair_class(0.25, 1)


@pytest.mark.parametrize(("new", "base", "cell"), [(0, 0, 1), (0, 3, 2), (3, 0, 0), (12, 12, 1), (11, 12, 2)])
def test_fewer_cards_left_wins_a_deal(new, base, cell):
    assert deal_class(new, base) == cell


def test_counts_add_up():
    counts = pentanomial([(1, 1), (1, 0), (0, 1), (0, 0), (1, 1)])
    assert counts.cells == (1, 0, 2, 0, 2) and counts.kind == PENTANOMIAL
    assert counts.pairs == 5 and counts.games == 10
    deals = trinomial([(0, 4), (4, 4), (9, 2)])
    assert deals.cells == (1, 1, 1) and deals.kind == TRINOMIAL and deals.games == 6
    assert (counts + counts).cells == (2, 0, 4, 0, 4)
    assert counts.mirrored().cells == (2, 0, 2, 0, 1)


@pytest.mark.parametrize("cells", [[1, 2], [1, 2, 3, 4], [1, -1, 0], [1.5, 0, 0], [True, 0, 0]])
def test_bad_counts_are_refused(cells):
    with pytest.raises(ValueError):
        Counts.of(cells)


def test_counts_of_different_kinds_do_not_add():
    with pytest.raises(ValueError, match="cannot add"):
        Counts.zeros(PENTANOMIAL) + Counts.zeros(TRINOMIAL)
