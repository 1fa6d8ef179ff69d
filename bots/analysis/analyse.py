"""Analysing a logged game turn by turn: what each turn was worth, what the expert would have played, the marks.

For every turn of the log, in the position before it and from the mover's side (what the mover could know: its hand,
the piles, every play so far, the sizes of hands and draw piles, never a hidden card):

- the expert's own turn there (policy.py) and the turn played are the candidates; when they lead to the same position
  (the same cards on the same piles, in any order) they are one;
- rollouts (rollouts.py) estimate each candidate's value with the same guesses at the hidden cards;
- `before` is the value of the position with the expert to move, i.e. of the expert's turn; `after` the value of the
  turn played; `best` the better of the two, and `loss` how much the played turn gives away against it: in winning
  chances, and in expected cards left at the end (0 after a win);
- the mark and the accuracy follow (marks.py).

Turn t's rollouts are seeded with "SEED:t", so a turn's figures do not depend on which other turns are analysed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bots.analysis import marks
from bots.analysis.policy import expert_turn
from bots.analysis.rollouts import DEFAULT_PRECISION, Precision, Samples, estimate
from games import GameState, Turn, position_before


@dataclass(frozen=True)
class TurnAnalysis:
    """One turn's figures. Win probabilities are in 0..1 (the mover's in Face to Face, the team's in the co-op games);
    `loss` = `best_value` - `after` and `stderr` is its standard error. The cards figures are the expected cards left
    at the end, 0 after a win (the mover's own in Face to Face, the team's in the co-op games); `cards_loss` is how
    many more the played turn leaves than the best, `cards_stderr` its standard error."""

    turn: int
    seat: int
    played: str
    best: str
    before: float
    after: float
    best_value: float
    loss: float
    stderr: float
    mark: str | None
    accuracy: float
    samples: int
    values_stderr: dict[str, float]
    cards_before: float
    cards_after: float
    cards_best: float
    cards_loss: float
    cards_stderr: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GameAnalysis:
    game: str
    seats: list[dict[str, Any]]
    turns: list[TurnAnalysis]
    accuracy: dict[int, float | None]
    result: dict[str, Any]
    seed: str
    precision: Precision

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "turns": [turn.to_json() for turn in self.turns],
            "accuracy": {str(seat): _rounded(value, 1) for seat, value in self.accuracy.items()},
            "result": self.result,
            "seed": self.seed,
            "rollouts": self.precision.max_samples,
            "horizon": self.precision.horizon,
        }


def analyse_log(
    log: dict[str, Any],
    seed: str = "0",
    precision: Precision = DEFAULT_PRECISION,
    turns: set[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> GameAnalysis:
    """Analyse the turns of `log` (all, or those numbered in `turns`); `progress(done, total)` after each turn.
    The log is checked first: a log that does not replay raises games.LogMismatch."""
    state = position_before(log, 1)  # checks the whole log first
    chosen = [number for number in range(1, len(log["turns"]) + 1) if turns is None or number in turns]
    analysed: list[TurnAnalysis] = []
    for number, entry in enumerate(log["turns"], start=1):
        played = Turn.from_json({"plays": entry["plays"], "signals": entry.get("signals") or {}})
        if number in chosen:
            analysed.append(analyse_turn(state, number, played, seed, precision))
            if progress is not None:
                progress(len(analysed), len(chosen))
        state.push(played)
    seat_count = log["options"]["players"]
    accuracy = {
        seat: marks.game_accuracy([turn.accuracy for turn in analysed if turn.seat == seat])
        for seat in range(seat_count)
    }
    return GameAnalysis(log["game"], log.get("seats", []), analysed, accuracy, log["result"], seed, precision)


def analyse_turn(state: GameState, number: int, played: Turn, seed: str, precision: Precision) -> TurnAnalysis:
    """Analyse the turn `played` by the player to move in `state` (turn `number` of its game)."""
    mover = state.to_move
    expert = expert_turn(state)
    same = _result_key(state, expert) == _result_key(state, played)
    candidates = [played] if same else [expert, played]
    samples = estimate(state, mover, candidates, f"{seed}:{number}", precision)
    return _figures(state.game_id, number, mover, candidates, samples)


def _figures(game: str, number: int, mover: int, candidates: list[Turn], samples: Samples) -> TurnAnalysis:
    played_index = len(candidates) - 1
    best_index = max(range(len(candidates)), key=lambda index: (_merit(samples, index, game), index))
    loss = samples.win(best_index) - samples.win(played_index)
    cards_loss = samples.cards_left(played_index) - samples.cards_left(best_index)
    if best_index != played_index:
        stderr = samples.win_drop_stderr(best_index, played_index)
        cards_stderr = samples.cards_rise_stderr(best_index, played_index)
    else:
        stderr = cards_stderr = 0.0
    thresholds = marks.cards_thresholds(game)
    mark = marks.turn_mark(100 * loss, 100 * stderr, cards_loss, cards_stderr, thresholds)
    accuracy = marks.move_accuracy(marks.effective_loss(100 * loss, 100 * stderr, cards_loss, cards_stderr, thresholds))
    values_stderr = {
        "before": samples.win_stderr(0),
        "after": samples.win_stderr(played_index),
        "best_value": samples.win_stderr(best_index),
    }
    return TurnAnalysis(
        turn=number,
        seat=mover,
        played=str(candidates[played_index]),
        best=str(candidates[best_index]),
        before=_rounded(samples.win(0), 4),
        after=_rounded(samples.win(played_index), 4),
        best_value=_rounded(samples.win(best_index), 4),
        loss=_rounded(loss, 4),
        stderr=_rounded(stderr, 4),
        mark=mark,
        accuracy=_rounded(accuracy, 1),
        samples=samples.count,
        values_stderr={key: _rounded(value, 4) for key, value in values_stderr.items()},
        cards_before=_rounded(samples.cards_left(0), 2),
        cards_after=_rounded(samples.cards_left(played_index), 2),
        cards_best=_rounded(samples.cards_left(best_index), 2),
        cards_loss=_rounded(cards_loss, 2),
        cards_stderr=_rounded(cards_stderr, 2),
    )


def _merit(samples: Samples, index: int, game: str) -> float:
    """What ranks candidates: win probability, and expected cards left as well at the marks' rate."""
    return 100 * samples.win(index) - marks.points_per_card(game) * samples.cards_left(index)


def _result_key(state: GameState, turn: Turn) -> tuple:
    """What a turn leaves behind: equal keys lead to the same position (the order of the plays aside)."""
    builder = state.check(turn)
    return (
        tuple(sorted(builder.tops.items())),
        tuple(sorted(builder.hand)),
        getattr(builder, "opponent_play", None) is not None,
    )


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)
