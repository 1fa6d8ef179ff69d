"""The counts a version test is decided on, always from the point of view of the NEW version.

Face to Face: one duplicate deal is a *pair* of games (the same cards, seats swapped). The pair's score for NEW
is 0, 1/2, 1, 3/2 or 2 (a win counts 1, a draw 1/2), so the pair falls in one of five classes:
the pentanomial counts `[LL, LD, LW+DD, DW, WW]`. Face to Face has no draws, so only LL, LW and WW occur,
but the general form is kept so the statistics are fishtest's own.

Co-op games: NEW and BASE each play the same deal with a team of their own; the deal is a "game" between
them, won by the version that leaves fewer cards (a won game leaves 0), drawn when both leave as many:
the trinomial counts `[L, D, W]`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PENTANOMIAL = "pentanomial"
TRINOMIAL = "trinomial"
KINDS = {5: PENTANOMIAL, 3: TRINOMIAL}
CELL_NAMES = {PENTANOMIAL: ("LL", "LD", "LW+DD", "DW", "WW"), TRINOMIAL: ("L", "D", "W")}


@dataclass(frozen=True)
class Counts:
    """How many pairs (pentanomial) or compared deals (trinomial) fell in each class, lowest score first."""

    cells: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.cells) not in KINDS:
            raise ValueError(f"counts have 5 cells (pentanomial) or 3 (trinomial), got {len(self.cells)}")
        if any(not isinstance(cell, int) or isinstance(cell, bool) or cell < 0 for cell in self.cells):
            raise ValueError(f"counts are whole numbers >= 0, got {list(self.cells)}")

    @classmethod
    def zeros(cls, kind: str) -> Counts:
        size = {value: key for key, value in KINDS.items()}[kind]
        return cls((0,) * size)

    @classmethod
    def of(cls, cells: Sequence[int]) -> Counts:
        return cls(tuple(cells))

    @property
    def kind(self) -> str:
        return KINDS[len(self.cells)]

    @property
    def pairs(self) -> int:
        """Samples: game pairs (pentanomial) or deals played by both versions (trinomial)."""
        return sum(self.cells)

    @property
    def games(self) -> int:
        """Games played: every sample is two games (a deal with the seats swapped, or one deal per version)."""
        return 2 * self.pairs

    def add(self, cell: int, times: int = 1) -> Counts:
        cells = list(self.cells)
        cells[cell] += times
        return Counts(tuple(cells))

    def __add__(self, other: Counts) -> Counts:
        if self.kind != other.kind:
            raise ValueError(f"cannot add {other.kind} counts to {self.kind} counts")
        return Counts(tuple(a + b for a, b in zip(self.cells, other.cells, strict=True)))

    def mirrored(self) -> Counts:
        """The same results seen from BASE's side."""
        return Counts(tuple(reversed(self.cells)))

    def to_json(self) -> list[int]:
        return list(self.cells)


def pair_class(first: float, second: float) -> int:
    """The pentanomial cell of a pair whose two games scored `first` and `second` (each 0, 1/2 or 1) for NEW."""
    for score in (first, second):
        if score not in (0, 0.5, 1):
            raise ValueError(f"a game scores 0, 1/2 or 1, got {score}")
    return round(2 * (first + second))


def deal_class(new_cards_left: int, base_cards_left: int) -> int:
    """The trinomial cell of a deal both versions played: 0 NEW left more cards, 1 as many, 2 fewer."""
    if new_cards_left < base_cards_left:
        return 2
    return 1 if new_cards_left == base_cards_left else 0


def pentanomial(pair_scores: Iterable[tuple[float, float]]) -> Counts:
    """Pentanomial counts of (first game, second game) scores for NEW."""
    counts = Counts.zeros(PENTANOMIAL)
    for first, second in pair_scores:
        counts = counts.add(pair_class(first, second))
    return counts


def trinomial(cards_left: Iterable[tuple[int, int]]) -> Counts:
    """Trinomial counts of (NEW's cards left, BASE's cards left) per deal."""
    counts = Counts.zeros(TRINOMIAL)
    for new_left, base_left in cards_left:
        counts = counts.add(deal_class(new_left, base_left))
    return counts
