"""An analysis for people (a turn-by-turn table) and for programs (JSON)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from bots.analysis.analyse import GameAnalysis, TurnAnalysis
from bots.analysis.marks import MARKS
from games import FACE_TO_FACE

PLAY_WIDTH = 28


def to_json(path: str, analysis: GameAnalysis) -> dict[str, Any]:
    """The JSON document of one analysed log: {"log", "game", "seats", "turns", "accuracy", ...}."""
    return {"log": path, **analysis.to_json()}


def table(path: str, analysis: GameAnalysis) -> Iterator[str]:
    """The lines of the turn-by-turn table, with per-seat accuracy and marks at the end."""
    names = {seat.get("seat"): seat.get("bot") or "?" for seat in analysis.seats}
    yield f"{path}: {analysis.game}, " + ", ".join(f"seat {seat} {name}" for seat, name in sorted(names.items()))
    yield f"  result: {_result(analysis.result)}"
    who = "team" if analysis.game != FACE_TO_FACE else "the mover's"
    who += " win probability / expected cards left (0 after a win)"
    yield f"  values: {who}, {analysis.precision.max_samples} rollouts at most per turn, seed {analysis.seed}"
    yield ""
    header = f"{'turn':>4} {'seat':>4}  {'played':<{PLAY_WIDTH}} {'best':<{PLAY_WIDTH}} "
    header += f"{'before':>12} {'after':>12} {'best':>12} {'loss':>13}  mark"
    yield header
    for turn in analysis.turns:
        yield _row(turn)
    yield ""
    for seat in sorted(analysis.accuracy):
        accuracy = analysis.accuracy[seat]
        counts = Counter(turn.mark for turn in analysis.turns if turn.seat == seat and turn.mark)
        marked = ", ".join(_counted(counts[mark], mark) for mark in MARKS if counts[mark])
        shown = "-" if accuracy is None else f"{accuracy:.1f}%"
        yield f"  seat {seat} ({names.get(seat, '?')}): accuracy {shown}; {marked or 'no marks'}"


def _counted(count: int, mark: str) -> str:
    if count == 1:
        return f"1 {mark}"
    return f"{count} " + ("inaccuracies" if mark == "inaccuracy" else f"{mark}s")


def _row(turn: TurnAnalysis) -> str:
    best = "(played)" if turn.best == turn.played else turn.best
    values = [
        _value(turn.before, turn.cards_before),
        _value(turn.after, turn.cards_after),
        _value(turn.best_value, turn.cards_best),
    ]
    loss = f"{100 * turn.loss:.1f}±{100 * turn.stderr:.1f}"
    if turn.cards_loss is not None:
        loss = f"{_points(turn.loss)}%/{turn.cards_loss:+.1f}c"
    return (
        f"{turn.turn:>4} {turn.seat:>4}  {_cut(turn.played):<{PLAY_WIDTH}} {_cut(best):<{PLAY_WIDTH}} "
        f"{values[0]:>12} {values[1]:>12} {values[2]:>12} {loss:>13}  {turn.mark or ''}"
    ).rstrip()


def _points(loss: float) -> str:
    """A loss in whole points, with no minus sign on a rounded zero."""
    return f"{round(100 * loss) + 0:d}"


def _value(win: float, cards: float | None) -> str:
    if cards is not None:
        return f"{100 * win:.0f}%/{cards:.1f}c"
    return f"{100 * win:.1f}%"


def _cut(text: str) -> str:
    return text if len(text) <= PLAY_WIDTH else text[: PLAY_WIDTH - 3] + "..."


def _result(result: dict[str, Any]) -> str:
    if result.get("winner") is not None:
        return f"seat {result['winner']} wins ({result.get('termination')})"
    return f"{result.get('score')} card(s) left ({result.get('termination')})"
