"""Who plays whom next on the ladder: the choice alone, a pure function of ratings, variances and counts.

No Django here: `scheduling` reads the members from the database and queues what `choose` returns, and
`bench.ladder_sim` drives the same `choose` on a simulated league.

What a match teaches. A game between i and j, won with probability p, tells the fit most when p is near 1/2 and
their ratings are least certain: its expected information about the ranking is taken as p(1-p) (var_i + var_j),
the issue's measure. p is only estimated, so the expectation is over the ratings' uncertainty too: for a gap of d
nats known up to a variance s = var_i + var_j, E[p(1-p)] = 1/4 sqrt(c / (c + s)) exp(-d^2 / 2(c + s)), which is
exact for the normal curve c = 8/pi that has p(1-p)'s peak and area. A member nobody has measured yet is far from
everyone, so its expected information is spread across the whole ladder, and it narrows as the fit closes in.

How pairs are drawn, given the free members (one pair per member per call):
1. Members being placed (versions with fewer than `placement_matches` matches) choose first, fewest matches first:
   each meets the house bots (the fixed anchors) it has not met yet, then opponents drawn with weight
   information^`placement_greed` (the sharper weighting closes its interval in fewer matches; its own uncertainty
   still spreads its first opponents over the ladder).
2. The others: a member is drawn with weight the sum of its information over its fair opponents, so matches go
   where the ranking is least settled; then its opponent with weight its information, among the fair ones.
Both draws are random, so everyone meets a spread of opponents, and a pair's weight is divided by 1 + the matches
its two members already played together. A pair is fair while it has taken fewer than `fair_share` of either
member's matches (the first meeting always is); a member whose fair opponents are all busy waits for one, and only
where nobody on the ladder is a fair opponent (a ladder of a few bots) are the least met drawn from.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)
# p(1-p) as a function of the gap (nats) has peak 1/4 and area 1: a normal curve with the same has variance 8/pi.
_CURVE_VARIANCE = 8.0 / math.pi
# How many neighbours in Elo, on either side, a member's weight in the draw of who plays sums over: on a ladder of
# thousands, what a pair 200 places apart would teach is negligible, and the sum stays O(n) rather than O(n^2).
REACH = 200


@dataclass(frozen=True, slots=True)
class Member:
    """A ladder member as the choice sees it."""

    key: Hashable
    elo: float  # the fitted Elo; an unrated member sits anywhere (its variance is infinite)
    variance: float  # of the Elo, in Elo^2; math.inf while unrated
    matches: float  # ladder matches played (rated games / games per match)
    anchor: bool = False  # a house bot: a fixed yardstick every new version meets early


@dataclass(frozen=True, slots=True)
class Rules:
    placement_matches: int = 30  # a version is being placed (it chooses first) for its first this many matches
    fair_share: float = 0.125  # the most of a member's matches one opponent may take while others are free
    unrated_sd: float = 350.0  # Elo: how uncertain an unrated member is taken to be, and the cap on any
    placement_greed: float = 3.0  # the exponent on a placed member's weights (1: proportional; large: the best)


def expected_information(gap: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """E[p(1-p)] for rating gaps `gap` (nats) each known up to the variance `spread` (nats^2)."""
    total = _CURVE_VARIANCE + spread
    return 0.25 * np.sqrt(_CURVE_VARIANCE / total) * np.exp(-(gap**2) / (2.0 * total))


def pair_key(a: Hashable, b: Hashable) -> tuple[Hashable, Hashable]:
    """How `met` names a pair: the two keys in sorted order."""
    return (a, b) if a <= b else (b, a)  # type: ignore[operator]


def choose(
    members: Sequence[Member],
    met: Mapping[tuple[Hashable, Hashable], float],
    room: int,
    rng: np.random.Generator,
    rules: Rules = Rules(),
    busy: Collection[Hashable] = (),
) -> list[tuple[Hashable, Hashable]]:
    """Up to `room` pairs of distinct `members` not `busy` (playing now), each member in at most one.

    `members` is the whole ladder: a member whose fair opponents are all busy waits for one of them rather than
    meet an opponent again past its fair share. `met[pair_key(a, b)]` is how many matches a and b played together
    (pending ones included); pairs never met may be left out.
    """
    if room <= 0 or len(members) < 2:
        return []
    field = _Field(members, met, rules, busy)
    pairs: list[tuple[Hashable, Hashable]] = []
    placing = [i for i, m in enumerate(members) if not m.anchor and m.matches < rules.placement_matches]
    for i in sorted(placing, key=lambda i: (members[i].matches, rng.random())):
        if len(pairs) == room or field.free.sum() < 2:
            return pairs
        if field.free[i]:
            field.pair(i, field.opponent(i, rng, rules.placement_greed, anchors_first=True), pairs)
    potential = field.potentials()
    while len(pairs) < room and field.free.sum() >= 2:
        weights = np.where(field.free, potential, 0.0)
        i = _draw(rng, weights if weights.sum() > 0 else field.free.astype(float))
        field.pair(i, field.opponent(i, rng, 1.0, anchors_first=False), pairs)
    return pairs


def _draw(rng: np.random.Generator, weights: np.ndarray) -> int:
    return int(rng.choice(len(weights), p=weights / weights.sum()))


class _Field:
    """The free members as arrays, and the pairs that already met (sparse: a ladder's members meet few others)."""

    def __init__(
        self,
        members: Sequence[Member],
        met: Mapping[tuple[Hashable, Hashable], float],
        rules: Rules,
        busy: Collection[Hashable],
    ):
        self.n = len(members)
        self.members = members
        cap = (rules.unrated_sd / ELO_PER_NAT) ** 2
        variance = np.array([m.variance for m in members], dtype=float) / ELO_PER_NAT**2
        self.variance = np.where(np.isfinite(variance), np.minimum(variance, cap), cap)
        self.strength = np.array([m.elo for m in members], dtype=float) / ELO_PER_NAT
        self.anchor = np.array([m.anchor for m in members], dtype=bool)
        matches = np.array([m.matches for m in members], dtype=float)
        # Fair while the pair took fewer than fair_share of the member's matches, this one included.
        self.allowance = np.maximum(1.0, np.floor(rules.fair_share * (matches + 1.0)))
        busy = set(busy)
        self.free = np.array([m.key not in busy for m in members], dtype=bool)
        index = {m.key: k for k, m in enumerate(members)}
        a = np.fromiter((index.get(pair[0], -1) for pair in met), dtype=np.int64, count=len(met))
        b = np.fromiter((index.get(pair[1], -1) for pair in met), dtype=np.int64, count=len(met))
        times = np.fromiter(met.values(), dtype=float, count=len(met))
        kept = (a >= 0) & (b >= 0) & (a != b) & (times > 0)
        self.met_a, self.met_b, self.met_times = a[kept], b[kept], times[kept]

    def information(self, i: int, columns: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Expected information of i against the members `columns`, before repeats are discounted."""
        spread = self.variance[i] + self.variance[columns]
        return expected_information(self.strength[i] - self.strength[columns], spread) * spread

    def _times_row(self, i: int) -> np.ndarray:
        """How many matches i played with each member."""
        row = np.zeros(self.n)
        np.add.at(row, self.met_b[self.met_a == i], self.met_times[self.met_a == i])
        np.add.at(row, self.met_a[self.met_b == i], self.met_times[self.met_b == i])
        return row

    def weights(self, i: int) -> np.ndarray:
        """Each member's weight as i's opponent: its information, discounted by the matches they played together."""
        weights = self.information(i) / (1.0 + self._times_row(i))
        weights[i] = 0.0
        return weights

    def fair(self, i: int) -> np.ndarray:
        times = self._times_row(i)
        fair = (times < self.allowance[i]) & (times < self.allowance)
        fair[i] = False
        return fair

    def potentials(self) -> np.ndarray:
        """Each member's summed weight over its fair opponents, counting the `REACH` nearest in Elo on either side
        (the information of a pair further apart is negligible on a ladder that large)."""
        n = self.n
        order = np.argsort(self.strength, kind="stable")
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        offsets = np.concatenate([np.arange(-REACH, 0), np.arange(1, REACH + 1)])
        positions = rank[:, None] + offsets[None, :]
        inside = (positions >= 0) & (positions < n)
        columns = order[np.clip(positions, 0, n - 1)]
        spread = self.variance[:, None] + self.variance[columns]
        gap = self.strength[:, None] - self.strength[columns]
        total = np.where(inside, expected_information(gap, spread) * spread, 0.0).sum(axis=1)
        # Pairs that met are few: correct their terms (discounted by their meetings, or dropped when unfair).
        a, b, times = self.met_a, self.met_b, self.met_times
        counted = np.abs(rank[a] - rank[b]) <= REACH
        a, b, times = a[counted], b[counted], times[counted]
        spread = self.variance[a] + self.variance[b]
        information = expected_information(self.strength[a] - self.strength[b], spread) * spread
        fair = (times < self.allowance[a]) & (times < self.allowance[b])
        change = np.where(fair, information / (1.0 + times), 0.0) - information
        total += np.bincount(a, change, n) + np.bincount(b, change, n)
        return np.maximum(total, 0.0)

    def opponent(self, i: int, rng: np.random.Generator, greed: float, anchors_first: bool) -> int | None:
        """i's opponent drawn among the free members; None when i should wait for a fair one who is busy now."""
        candidates = self.free.copy()
        candidates[i] = False
        if anchors_first:
            unmet_anchors = candidates & self.anchor & (self._times_row(i) == 0)
            if unmet_anchors.any():
                candidates = unmet_anchors
        fair = self.fair(i)
        if (candidates & fair).any():
            candidates &= fair
        elif fair.any():
            return None
        else:  # nobody on the ladder is a fair opponent (a small ladder): the least met free ones are
            times = self._times_row(i)
            candidates &= times == times[candidates].min()
        weights = np.where(candidates, self.weights(i), 0.0)
        if greed != 1.0 and weights.max() > 0:
            weights = (weights / weights.max()) ** greed
        return _draw(rng, weights if weights.sum() > 0 else candidates.astype(float))

    def pair(self, i: int, j: int | None, pairs: list[tuple[Hashable, Hashable]]) -> None:
        """Add the pair (i, j) to `pairs`; with no j, i waits this time."""
        self.free[i] = False
        if j is not None:
            self.free[j] = False
            pairs.append((self.members[i].key, self.members[j].key))
