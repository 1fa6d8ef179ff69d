"""The ladder's pairing choice (league/arena/ladder/pairing.py), a pure function: no database here."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from league.arena.ladder.pairing import Member, Rules, choose, expected_information, pair_key

SETTLED = 30.0**2  # a well-measured member's Elo variance


def ladder(count: int, matches: float = 60.0, spread: float = 40.0) -> list[Member]:
    """`count` settled members `spread` Elo apart, none being placed."""
    return [Member(f"m{k:02d}", 1500.0 + spread * (k - count / 2), SETTLED, matches) for k in range(count)]


def anchors() -> list[Member]:
    return [
        Member("house:random", 500.0, 200.0**2, 300.0, anchor=True),
        Member("house:greedy", 1400.0, 20.0**2, 300.0, anchor=True),
        Member("house:expert", 1700.0, 20.0**2, 300.0, anchor=True),
    ]


def draws(members, met, room, times=300, seed=0, rules=None, busy=()):
    rng = np.random.default_rng(seed)
    return [choose(members, met, room, rng, rules or Rules(), busy) for _ in range(times)]


def test_each_member_is_in_one_pair_at_most_never_with_itself_and_room_is_kept():
    members = ladder(9)
    for pairs in draws(members, {}, room=10, times=50):
        assert len(pairs) == 4  # nine free members make four pairs
        seen = [key for pair in pairs for key in pair]
        assert len(seen) == len(set(seen))
    assert all(len(pairs) == 2 for pairs in draws(members, {}, room=2, times=20))
    rng = np.random.default_rng(0)
    assert choose(members[:1], {}, 3, rng) == [] and choose(members, {}, 0, rng) == []


def test_expected_information_peaks_for_an_even_pair_and_flattens_with_uncertainty():
    gaps = np.array([0.0, 1.0, 3.0])
    sure, unsure = expected_information(gaps, np.zeros(3)), expected_information(gaps, np.full(3, 4.0))
    assert sure[0] == pytest.approx(0.25) and sure[0] > sure[1] > sure[2]
    assert unsure[2] / unsure[0] > sure[2] / sure[0]  # an unmeasured member's information is spread wide
    # the normal curve stands for p(1-p) of the logistic: close at the peak and at a 1-nat gap
    p = 1.0 / (1.0 + math.exp(-1.0))
    assert sure[1] == pytest.approx(p * (1 - p), rel=0.05)


def test_a_new_version_is_placed_first_and_meets_every_house_bot_first():
    newcomer = Member("new", 1500.0, math.inf, 0.0)
    members = [*ladder(12), *anchors(), newcomer]
    met: dict = {}
    opponents = []
    rng = np.random.default_rng(1)
    for _ in range(3):
        pairs = choose(members, met, 1, rng)
        assert len(pairs) == 1 and "new" in pairs[0]  # one place: it goes to the version being placed
        other = pairs[0][0] if pairs[0][1] == "new" else pairs[0][1]
        opponents.append(other)
        met[pair_key("new", other)] = met.get(pair_key("new", other), 0) + 1
    assert sorted(opponents) == ["house:expert", "house:greedy", "house:random"]


def test_a_new_versions_first_opponents_spread_over_the_ladder():
    members = [*ladder(30, spread=25.0), Member("new", 1500.0, math.inf, 0.0)]
    firsts = Counter()
    for pairs in draws(members, {}, room=1, times=400, seed=2):
        (pair,) = pairs
        firsts[pair[0] if pair[1] == "new" else pair[1]] += 1
    # Unmeasured, its information is spread: most of the ladder is drawn, the extremes included.
    assert len(firsts) >= 25
    assert firsts["m00"] > 0 and firsts["m29"] > 0
    assert max(firsts.values()) < 0.1 * 400


def test_placement_ends_after_the_placement_matches():
    members = [*ladder(6), Member("old-new", 1500.0, 60.0**2, 30.0)]
    chosen = Counter(key for pairs in draws(members, {}, room=1, times=200) for key in pairs[0])
    assert chosen["old-new"] < 200  # no longer first in line at 30 matches (the default)
    rules = Rules(placement_matches=31)
    assert all("old-new" in pairs[0] for pairs in draws(members, {}, room=1, times=50, rules=rules))


def test_no_pair_takes_more_than_its_fair_share_while_others_are_free():
    # The lock-on: two similar bots met in each of their 16 matches; others are free and close enough.
    twins = [Member("twin-a", 1500.0, 70.0**2, 16.0), Member("twin-b", 1501.0, 70.0**2, 16.0)]
    members = [*twins, *ladder(8, matches=16.0, spread=60.0)]
    met = {pair_key("twin-a", "twin-b"): 16.0}
    for pairs in draws(members, met, room=5, times=200):
        assert ("twin-a", "twin-b") not in pairs and ("twin-b", "twin-a") not in pairs
    # While the others play, the twins wait for them rather than meet again...
    others = {m.key for m in members[2:]}
    assert draws(members, met, room=5, times=20, busy=others) == [[]] * 20
    # ... and on a ladder of the two alone they still play (a fair share applies while others are available).
    assert all(set(pairs[0]) == {"twin-a", "twin-b"} for pairs in draws(twins, met, room=1, times=5))


def test_busy_members_are_never_paired():
    members = ladder(10)
    busy = {m.key for m in members[:6]}
    for pairs in draws(members, {}, room=5, times=50, busy=busy):
        assert len(pairs) == 2 and not {key for pair in pairs for key in pair} & busy


def test_a_repeat_is_fair_once_the_member_played_enough_matches():
    members = [
        Member("a", 1500.0, SETTLED, 40.0),
        Member("b", 1500.0, SETTLED, 40.0),
        Member("c", 2400.0, SETTLED, 40.0),
    ]
    met = {pair_key("a", "b"): 4.0, pair_key("a", "c"): 0.0}  # 4 < 12.5 % of 41 matches: a fair repeat
    chosen = Counter(frozenset(pairs[0]) for pairs in draws(members, met, room=1, times=300))
    assert chosen[frozenset({"a", "b"})] > chosen[frozenset({"a", "c"})]


def test_pairs_whose_result_is_least_predictable_and_least_certain_are_preferred():
    members = [
        Member("close-1", 1500.0, 80.0**2, 40.0),
        Member("close-2", 1510.0, 80.0**2, 40.0),
        Member("far-1", 900.0, 20.0**2, 40.0),
        Member("far-2", 2100.0, 20.0**2, 40.0),
    ]
    chosen = Counter(frozenset(pairs[0]) for pairs in draws(members, {}, room=1, times=400))
    assert chosen.most_common(1)[0][0] == frozenset({"close-1", "close-2"})
    assert chosen[frozenset({"close-1", "close-2"})] > 0.6 * 400


def test_the_choice_is_reproducible_from_its_random_generator():
    members = [*ladder(20), *anchors(), Member("new", 1500.0, math.inf, 0.0)]
    assert draws(members, {}, room=4, times=5, seed=7) == draws(members, {}, room=4, times=5, seed=7)
