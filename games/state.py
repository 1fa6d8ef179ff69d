"""What the three games share: turn checking play by play, the stuck test, forfeits and the log.

Each game supplies a `TurnBuilder`: a scratch copy of the mover's hand and the pile tops onto which a
turn is laid one play at a time. `reason()` says which rule a play would break (or None), so the same
check serves `push()` (which turns it into an IllegalTurn with a message), `legal_plays()` and the
search for any legal turn that decides whether the mover is stuck.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.errors import CommandBroken, GameOver, IllegalTurn
from games.log import GameLog
from games.moves import Play, Turn
from games.outcome import Outcome, Termination

ASCENDING = "up"
DESCENDING = "down"


class TurnBuilder:
    """A turn under construction. Subclasses define the rules; this class holds the bookkeeping."""

    __slots__ = ("tops", "hand", "plays")

    # Rule ids whose breach is a broken Extreme command rather than a plain illegal turn.
    COMMAND_RULES: frozenset[str] = frozenset()

    tops: dict[str, int]
    hand: list[int]
    plays: list[Play]

    def reason(self, card: int, pile: str) -> str | None:
        """The rule id that playing `card` on `pile` next would break, or None if it is legal."""
        raise NotImplementedError

    def apply(self, card: int, pile: str) -> None:
        """Lay a play already known to be legal."""
        raise NotImplementedError

    def end_reason(self) -> str | None:
        """The rule id that ending the turn now would break, or None."""
        raise NotImplementedError

    PILE_IDS: tuple[str, ...] = ()

    def describe(self, rule: str, card: int | None = None, pile: str | None = None) -> str:
        """A person's sentence for a broken rule (subclasses add their games' own rules)."""
        if rule == "not-in-hand":
            return f"{card} cannot go on {pile}: it is not in your hand"
        if rule == "played-twice":
            return f"{card} cannot go on {pile}: it was already played in this turn"
        if rule == "unknown-pile":
            return f"{card} cannot go on {pile!r}: there is no such pile; the piles are {', '.join(self.PILE_IDS)}"
        raise KeyError(rule)

    def copy(self) -> TurnBuilder:
        raise NotImplementedError

    def add(self, play: Play) -> None:
        rule = self.reason(play.card, play.pile)
        if rule is not None:
            raise self.play_error(rule, play)
        self.apply(play.card, play.pile)

    def add_all(self, plays: Sequence[Play]) -> None:
        """`add` for each play; the hot path of every turn, hence the local names."""
        reason, apply = self.reason, self.apply
        for card, pile in plays:
            rule = reason(card, pile)
            if rule is not None:
                raise self.play_error(rule, Play(card, pile))
            apply(card, pile)

    def play_error(self, rule: str, play: Play) -> IllegalTurn:
        index = len(self.plays) + 1
        return self._error(rule, f"play {index}: {self.describe(rule, play.card, play.pile)}", index)

    def finish(self) -> None:
        rule = self.end_reason()
        if rule is not None:
            raise self._error(rule, self.describe(rule), None)

    def _error(self, rule: str, message: str, index: int | None) -> IllegalTurn:
        error_type = CommandBroken if rule in self.COMMAND_RULES else IllegalTurn
        return error_type(message, rule=rule, play_index=index)

    def next_plays(self) -> list[Play]:
        return [Play(card, pile) for card in sorted(self.hand) for pile in self.tops if self.reason(card, pile) is None]

    def hopeless(self) -> bool:
        """A cheap proof that no continuation can make this a legal turn (prunes the search)."""
        return False

    def search_key(self) -> tuple:
        """What decides how this turn may go on: equal keys have equal futures."""
        raise NotImplementedError

    def can_complete(self, dead_ends: set[tuple] | None = None) -> bool:
        """Whether some continuation (possibly none) makes this a legal turn."""
        if self.end_reason() is None:
            return True
        if self.hopeless():
            return False
        if dead_ends is None:
            dead_ends = set()
        key = self.search_key()
        if key in dead_ends:
            return False
        for card in tuple(self.hand):
            for pile in self.tops:
                if self.reason(card, pile) is None:
                    branch = self.copy()
                    branch.apply(card, pile)
                    if branch.can_complete(dead_ends):
                        return True
        dead_ends.add(key)
        return False


def pile_fits(card: int, top: int, direction: str) -> bool:
    """The plain pile rule, without the backwards trick."""
    return card > top if direction == ASCENDING else card < top


def is_trick(card: int, top: int, direction: str) -> bool:
    """The backwards trick: exactly 10 below an ascending top, or 10 above a descending one."""
    return card == (top - 10 if direction == ASCENDING else top + 10)


def pile_rule_text(top: int, direction: str, card_range: range, trick: bool = True) -> str:
    """'it must be higher than 27 or exactly 17' and the like."""
    if direction == ASCENDING:
        text, trick_card = f"it must be higher than {top}", top - 10
    else:
        text, trick_card = f"it must be lower than {top}", top + 10
    if trick and trick_card in card_range:
        text += f" or exactly {trick_card}"
    return text


class GameState:
    """A game in progress. Subclasses: FaceToFaceState, CoopState."""

    game_id: str
    players: int
    hand_size: int
    to_move: int | None
    outcome: Outcome | None
    hands: list[list[int]]
    piles: dict[str, list[int]]
    tops: dict[str, int]
    log: GameLog
    turn_number: int

    def builder(self) -> TurnBuilder:
        """A fresh TurnBuilder for the player to move."""
        raise NotImplementedError

    def _commit(self, builder: TurnBuilder, turn: Turn) -> None:
        """Apply a checked turn: piles, hand, draw, signals, then decide who moves next or how it ended."""
        raise NotImplementedError

    def observation(self, seat: int) -> dict[str, Any]:
        raise NotImplementedError

    def with_hidden_cards(self, hands: list[list[int]], draw_piles: list[list[int]]) -> GameState:
        """This position with the cards nobody sees placed otherwise (hands, and draw piles in draw order)."""
        raise NotImplementedError

    def cards_not_placed(self) -> int:
        raise NotImplementedError

    # -- playing -----------------------------------------------------------------------------

    def check(self, turn: Turn) -> TurnBuilder:
        """Check a whole turn without changing the state; return the finished builder."""
        if self.outcome is not None or self.to_move is None:
            raise GameOver("the game is over", rule="game-over")
        builder = self.builder()
        builder.add_all(turn.plays)
        builder.finish()
        self._check_signals(builder, turn.signals)
        return builder

    def push(self, turn: Turn | dict | list, ms: float | None = None) -> None:
        """Play the mover's whole turn, or raise IllegalTurn and leave the state unchanged."""
        turn = Turn.from_json(turn)
        builder = self.check(turn)
        seat = self.to_move
        self.log.record_turn(seat, turn, ms)
        self.turn_number += 1
        self._commit(builder, turn)

    def legal_plays(self, prefix: Sequence[Play] = ()) -> list[Play]:
        """The plays that may legally follow `prefix` in the mover's current turn."""
        if self.outcome is not None:
            return []
        builder = self.builder()
        builder.add_all(prefix)
        return builder.next_plays()

    def can_end_turn(self, prefix: Sequence[Play]) -> bool:
        """Whether the mover may end the turn after `prefix` (ignoring signals)."""
        builder = self.builder()
        builder.add_all(prefix)
        return builder.end_reason() is None

    def forfeit(
        self,
        seat: int,
        termination: Termination,
        detail: str,
        rejected: dict[str, Any] | None = None,
    ) -> Outcome:
        """End the game because the bot in `seat` failed (illegal turn, timeout, crash, ...)."""
        if self.outcome is not None:
            raise GameOver("the game is over", rule="game-over")
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not a seat of this {self.players}-player game")
        self.log.rejected_turn = rejected
        self._end(self._forfeit_outcome(seat, termination, detail))
        return self.outcome

    def reject(self, raw_turn: Any, error: IllegalTurn, ms: float | None = None) -> Outcome:
        """End the game with the mover's illegal turn, keeping the turn in the log for re-checking."""
        termination = Termination.COMMAND_BROKEN if isinstance(error, CommandBroken) else Termination.ILLEGAL_TURN
        rejected = {"seat": self.to_move, "turn": _jsonable(raw_turn), "rule": error.rule, "ms": _ms(ms)}
        return self.forfeit(self.to_move, termination, error.message, rejected)

    def _forfeit_outcome(self, seat: int, termination: Termination, detail: str) -> Outcome:
        raise NotImplementedError

    def _check_signals(self, builder: TurnBuilder, signals: tuple[tuple[str, str], ...]) -> None:
        if signals:
            raise IllegalTurn("signals are only for the co-op games", rule="signals")

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.to_move = None
        self.log.result = outcome

    def _can_move(self, seat: int) -> bool:
        """Whether `seat`, about to move, has any legal turn of the minimum length."""
        return self.builder().can_complete()

    @property
    def is_over(self) -> bool:
        return self.outcome is not None


def _ms(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 3)


def _jsonable(raw: Any) -> Any:
    """A bot's raw turn as JSON, so a rejected turn can be stored and re-checked."""
    if isinstance(raw, Turn):
        return raw.to_json()
    if raw is None or isinstance(raw, (bool, int, float, str)):
        return raw
    if isinstance(raw, (list, tuple)):
        return [_jsonable(item) for item in raw]
    if isinstance(raw, dict) and all(isinstance(key, str) for key in raw):
        return {key: _jsonable(value) for key, value in raw.items()}
    return repr(raw)
