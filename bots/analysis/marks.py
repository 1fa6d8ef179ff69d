"""Marks (inaccuracy, mistake, blunder) and accuracy, lichess-style.

A turn's loss is how much worse the played turn is than the best turn found, in two measures: winning chances
(percentage points of the mover's win probability in Face to Face, the team's in the co-op games) and expected cards
left at the end, counted as 0 after a win (the co-op team's cards not placed; in Face to Face the mover's own hand and
draw pile when it loses, so that throwing cards away in a lost game counts, as it does in a lost co-op game).
Thresholds:

| mark       | win probability drop | expected cards left rise |
|------------|----------------------|--------------------------|
| inaccuracy | >= 5 points          | >= 1.5 cards             |
| mistake    | >= 10 points         | >= 3 cards               |
| blunder    | >= 15 points         | >= 5 cards               |

(lichess's 0.1 / 0.2 / 0.3 on its [-1, 1] scale are 5 / 10 / 15 points of win probability; 3 cards are about one
turn's plays, a turn given away.) A turn gets the worse of its two marks. A loss counts only beyond its own error: a
drop smaller than `SIGNIFICANCE` times its standard error (paired, see rollouts.py) is never marked, however large it
looks.

Accuracy, per turn, is lichess's formula on the loss in points, 103.1668 * exp(-0.04354 * loss) - 3.1669, clamped
to 0..100, where the loss is first reduced by its standard error (a loss within its error is no loss) and is the
larger of the win-probability loss and the cards loss converted at the mistake thresholds' rate (3 cards count as 10
points). A seat's accuracy in a game is the mean of the arithmetic and harmonic means of its turns' accuracies
(lichess weighs its arithmetic mean by the position's volatility; here every turn counts the same), so that one
blunder costs more than several small slips.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from games import FACE_TO_FACE

INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"
MARKS = (INACCURACY, MISTAKE, BLUNDER)  # in order of severity
WIN_THRESHOLDS = (5.0, 10.0, 15.0)  # percentage points of win probability
CARDS_THRESHOLDS = (1.5, 3.0, 5.0)  # expected cards left at the end (the team's; the mover's own in Face to Face)
FACE_TO_FACE_CARDS_THRESHOLDS = CARDS_THRESHOLDS
SIGNIFICANCE = 2.0  # a loss is marked only if it is at least this many standard errors


def cards_thresholds(game: str) -> tuple[float, float, float]:
    """The expected-cards-left rises that make an inaccuracy, a mistake and a blunder in `game`."""
    return FACE_TO_FACE_CARDS_THRESHOLDS if game == FACE_TO_FACE else CARDS_THRESHOLDS


def points_per_card(game: str) -> float:
    """How many points of win probability one expected card left is worth in `game` (at the mistake thresholds)."""
    return WIN_THRESHOLDS[1] / cards_thresholds(game)[1]


def mark_for(loss: float, stderr: float, thresholds: Sequence[float]) -> str | None:
    """The mark a loss earns against `thresholds` (inaccuracy, mistake, blunder), or None."""
    if loss < SIGNIFICANCE * stderr:
        return None
    earned = None
    for name, threshold in zip(MARKS, thresholds, strict=True):
        if loss >= threshold:
            earned = name
    return earned


def worse(first: str | None, second: str | None) -> str | None:
    """The more severe of two marks."""
    rank = {None: -1, **{name: index for index, name in enumerate(MARKS)}}
    return first if rank[first] >= rank[second] else second


def turn_mark(
    win_loss_points: float,
    win_stderr_points: float,
    cards_loss: float | None = None,
    cards_stderr: float | None = None,
    thresholds: Sequence[float] = CARDS_THRESHOLDS,
) -> str | None:
    """The mark of a turn from its loss in win-probability points and in expected cards left (against the cards
    `thresholds`): the worse of the two."""
    mark = mark_for(win_loss_points, win_stderr_points, WIN_THRESHOLDS)
    if cards_loss is not None:
        mark = worse(mark, mark_for(cards_loss, cards_stderr, thresholds))
    return mark


def effective_loss(
    win_loss_points: float,
    win_stderr_points: float,
    cards_loss: float | None = None,
    cards_stderr: float | None = None,
    thresholds: Sequence[float] = CARDS_THRESHOLDS,
) -> float:
    """The loss in points that accuracy counts: beyond its error, the larger of the two kinds, the cards converted at
    the mistake thresholds' rate."""
    points = max(0.0, win_loss_points - win_stderr_points)
    if cards_loss is not None:
        rate = WIN_THRESHOLDS[1] / thresholds[1]
        points = max(points, rate * max(0.0, cards_loss - cards_stderr))
    return points


def move_accuracy(loss_points: float) -> float:
    """lichess's accuracy of one move from its loss in win-percentage points."""
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * max(0.0, loss_points)) - 3.1669))


def game_accuracy(accuracies: Sequence[float]) -> float | None:
    """A seat's accuracy over its turns: the mean of their arithmetic and harmonic means (None with no turns)."""
    if not accuracies:
        return None
    arithmetic = math.fsum(accuracies) / len(accuracies)
    harmonic = len(accuracies) / math.fsum(1.0 / max(accuracy, 1.0) for accuracy in accuracies)
    return (arithmetic + harmonic) / 2
