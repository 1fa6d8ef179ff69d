"""The random bot's allocation-free move picker lists exactly the plays the plain move list holds, in its order.

The bot draws a uniform index into that order, so the two must agree for its turns to be uniformly random
over the legal plays (and for a game to replay the same turns after the picker changed).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.house import load_house_bot

random_bot = load_house_bot("random")
OWN_UP, OWN_DOWN, OPP_UP, OPP_DOWN = random_bot.OWN_UP, random_bot.OWN_DOWN, random_bot.OPP_UP, random_bot.OPP_DOWN

face_to_face = st.tuples(
    st.lists(st.integers(2, 59), min_size=1, max_size=6, unique=True),
    st.lists(st.integers(1, 60), min_size=4, max_size=4),
    st.just([OWN_UP, OWN_DOWN, OPP_UP, OPP_DOWN]),
    st.booleans(),
)
co_op = st.tuples(
    st.lists(st.integers(2, 99), min_size=1, max_size=8, unique=True),
    st.lists(st.integers(1, 100), min_size=4, max_size=4),
    st.just([OWN_UP, OWN_UP, OWN_DOWN, OWN_DOWN]),
    st.just(True),
)


@settings(max_examples=500)
@given(st.one_of(face_to_face, co_op))
def test_it_lists_every_legal_play_in_the_plain_order(position) -> None:
    hand, tops, kinds, opp_free = position
    hand = sorted(hand)
    total, spans = random_bot._fitting_spans(hand, tops, kinds, opp_free)
    picked = [random_bot._nth_move(hand, spans, index) for index in range(total)]
    assert picked == random_bot._plain_moves(hand, tops, kinds, opp_free)


def test_it_finds_a_follow_up_exactly_when_one_exists() -> None:
    # own up pile at 30, own down pile at 10, the opponent's piles closed to every card in hand
    hand, tops, kinds = [33, 36], [30, 10, 2, 59], [OWN_UP, OWN_DOWN, OPP_UP, OPP_DOWN]
    _, spans = random_bot._fitting_spans(hand, tops, kinds, True)
    assert random_bot._can_follow(spans, hand, tops, kinds, True, 33, 0)  # 36 then goes up on 33
    assert not random_bot._can_follow(spans, hand, tops, kinds, True, 36, 0)  # 33 fits nowhere after 36
    assert tops == [30, 10, 2, 59]  # the look-ahead put the pile back
