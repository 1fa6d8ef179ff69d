"""The Game: Face to Face (RULES.md section 1): two players, each with their own deck and piles."""

from __future__ import annotations

from typing import Any

from games.catalog import FACE_TO_FACE
from games.log import GameLog
from games.moves import Play, Turn, _new_tuple
from games.outcome import Outcome, Termination
from games.state import ASCENDING, DESCENDING, GameState, TurnBuilder, is_trick, pile_rule_text

GAME_ID = FACE_TO_FACE
CARDS = range(2, 60)
HAND_SIZE = 6
MIN_PLAYS = 2
DRAW_AFTER_OWN_PILES = 2
PILE_IDS = ("p0.up", "p0.down", "p1.up", "p1.down")
DIRECTION = {"p0.up": ASCENDING, "p0.down": DESCENDING, "p1.up": ASCENDING, "p1.down": DESCENDING}
START = {ASCENDING: 1, DESCENDING: 60}
OWNER = {pile: int(pile[1]) for pile in PILE_IDS}
IS_ASCENDING = {pile: direction == ASCENDING for pile, direction in DIRECTION.items()}
OWN_UP = ("p0.up", "p1.up")
OWN_DOWN = ("p0.down", "p1.down")


class FaceToFaceTurn(TurnBuilder):
    PILE_IDS = PILE_IDS
    __slots__ = ("seat", "min_plays", "opponent_play")

    def __init__(self, seat: int, tops: dict[str, int], hand: list[int], min_plays: int) -> None:
        self.seat = seat
        self.tops = tops
        self.hand = hand
        self.plays = []
        self.min_plays = min_plays
        self.opponent_play: Play | None = None

    def copy(self) -> FaceToFaceTurn:
        clone = FaceToFaceTurn(self.seat, dict(self.tops), list(self.hand), self.min_plays)
        clone.plays = list(self.plays)
        clone.opponent_play = self.opponent_play
        return clone

    def search_key(self) -> tuple:
        return (frozenset(self.hand), tuple(self.tops.values()), len(self.plays), self.opponent_play is None)

    def reason(self, card: int, pile: str) -> str | None:
        if card not in self.hand:
            return "played-twice" if any(play.card == card for play in self.plays) else "not-in-hand"
        top = self.tops.get(pile)
        if top is None:
            return "unknown-pile"
        ascending = IS_ASCENDING[pile]
        if OWNER[pile] == self.seat:
            if ascending:
                fits = card > top or card == top - 10
            else:
                fits = card < top or card == top + 10
            return None if fits else "pile-order"
        if self.opponent_play is not None:
            return "two-opponent-plays"
        # On the opponent's piles the rule is reversed and the backwards trick never applies.
        fits = card < top if ascending else card > top
        return None if fits else "opponent-pile-order"

    def apply(self, card: int, pile: str) -> None:
        self.hand.remove(card)
        self.tops[pile] = card
        play = _new_tuple(Play, (card, pile))
        self.plays.append(play)
        if OWNER[pile] != self.seat:
            self.opponent_play = play

    def end_reason(self) -> str | None:
        return "too-few-plays" if len(self.plays) < self.min_plays else None

    def describe(self, rule: str, card: int | None = None, pile: str | None = None) -> str:
        if rule == "two-opponent-plays":
            return (
                f"{card} on {pile} would be a second card on the opponent's piles this turn "
                f"(after {self.opponent_play}); only one is allowed"
            )
        if rule in ("pile-order", "opponent-pile-order"):
            return self._describe_pile_order(card, pile)
        if rule == "too-few-plays":
            return (
                f"the turn has {len(self.plays)} play(s); at least {self.min_plays} are required "
                f"with {len(self.hand) + len(self.plays)} card(s) in hand"
            )
        return super().describe(rule, card, pile)

    def _describe_pile_order(self, card: int, pile: str) -> str:
        top = self.tops[pile]
        direction = DIRECTION[pile]
        name = "ascending" if direction == ASCENDING else "descending"
        if OWNER[pile] == self.seat:
            rule = pile_rule_text(top, direction, CARDS)
            return f"{card} cannot go on your {name} pile {pile} showing {top}: {rule}"
        reversed_rule = pile_rule_text(top, DESCENDING if direction == ASCENDING else ASCENDING, CARDS, trick=False)
        note = "; the backwards trick never applies on the opponent's piles" if is_trick(card, top, direction) else ""
        return f"{card} cannot go on the opponent's {name} pile {pile} showing {top}: {reversed_rule}{note}"


class FaceToFaceState(GameState):
    game_id = GAME_ID
    players = 2
    hand_size = HAND_SIZE

    def __init__(self, decks: list[list[int]], start_seat: int, seed: str) -> None:
        self.decks = [list(deck) for deck in decks]
        self.hands = [deck[:HAND_SIZE] for deck in self.decks]
        self.draw_piles = [deck[HAND_SIZE:] for deck in self.decks]
        self.draw_piles_reversed = [pile[::-1] for pile in self.draw_piles]  # pop() takes the next card
        self.piles = {pile: [START[DIRECTION[pile]]] for pile in PILE_IDS}
        self.tops = {pile: START[DIRECTION[pile]] for pile in PILE_IDS}
        self.turn_number = 0
        self.outcome = None
        self.to_move = start_seat
        options = {"players": 2, "hand_size": HAND_SIZE, "command_table": None}
        self.log = GameLog(GAME_ID, options, seed, start_seat, [list(deck) for deck in self.decks])
        self.log.set_bots([(None, None), (None, None)])
        if not self._can_move(start_seat):
            self._end(Outcome(Termination.STUCK, winner=1 - start_seat, seat=start_seat, detail=self._stuck_detail()))

    def with_hidden_cards(self, hands: list[list[int]], draw_piles: list[list[int]]) -> FaceToFaceState:
        """This position with other hands and draw piles (each in draw order): a guess at the cards a player
        cannot see, for search (bots/analysis). Each seat keeps its own cards, only their places change.
        The copy's log holds just the turns played on it."""
        for seat in range(2):
            if sorted(hands[seat] + draw_piles[seat]) != sorted(self.hands[seat] + self.draw_piles_reversed[seat]):
                raise ValueError(f"seat {seat}'s hand and draw pile must hold the same cards as in this position")
        copy = FaceToFaceState.__new__(FaceToFaceState)
        copy.decks = self.decks
        copy.hands = [list(hand) for hand in hands]
        copy.draw_piles = [list(pile) for pile in draw_piles]
        copy.draw_piles_reversed = [pile[::-1] for pile in draw_piles]
        copy.piles = {pile: list(history) for pile, history in self.piles.items()}
        copy.tops = dict(self.tops)
        copy.turn_number = self.turn_number
        copy.outcome = self.outcome
        copy.to_move = self.to_move
        copy.log = GameLog(GAME_ID, self.log.options, self.log.seed, self.to_move, [])
        return copy

    def min_plays(self, seat: int) -> int:
        return min(MIN_PLAYS, len(self.hands[seat]))

    def builder(self) -> FaceToFaceTurn:
        seat = self.to_move
        return FaceToFaceTurn(seat, dict(self.tops), list(self.hands[seat]), self.min_plays(seat))

    def push(self, turn: Turn | dict | list, ms: float | None = None) -> None:
        """Play the mover's turn; see GameState.push.

        Most turns in a match are plain and legal, so they go through `_push_plain` first: a single pass
        over the plays with local variables. Anything else (signals, odd shapes, an illegal play) falls
        through to the general check, which produces the exact error. A test plays random legal and
        illegal turns through both paths and compares every resulting state.
        """
        if self.outcome is None and self._push_plain(turn, ms):
            return
        super().push(turn, ms)

    def _push_plain(self, turn: object, ms: float | None) -> bool:
        if type(turn) is dict:
            if len(turn) != 1:
                return False
            raw_plays = turn.get("plays")
        elif type(turn) is list:
            raw_plays = turn
        else:
            return False
        if type(raw_plays) is not list:
            return False
        seat = self.to_move
        hand = self.hands[seat]
        if len(raw_plays) < (MIN_PLAYS if len(hand) >= MIN_PLAYS else len(hand)):
            return False
        tops = self.tops
        own_up, own_down = OWN_UP[seat], OWN_DOWN[seat]
        other_up, other_down = OWN_UP[1 - seat], OWN_DOWN[1 - seat]
        up, down, opponent_up, opponent_down = tops[own_up], tops[own_down], tops[other_up], tops[other_down]
        left = hand[:]
        opponent_play = False
        plays = []  # the log's own copy, so the bot cannot change it afterwards
        for play in raw_plays:
            if type(play) is not list or len(play) != 2:
                return False
            card, pile = play
            plays.append([card, pile])
            if type(card) is not int or card not in left:
                return False
            if pile == own_up and (card > up or card == up - 10):
                up = card
            elif pile == own_down and (card < down or card == down + 10):
                down = card
            elif pile == other_up and not opponent_play and card < opponent_up:
                opponent_up, opponent_play = card, True
            elif pile == other_down and not opponent_play and card > opponent_down:
                opponent_down, opponent_play = card, True
            else:
                return False
            left.remove(card)
        self.log.turns.append(
            {"seat": seat, "plays": plays, "signals": {}, "ms": None if ms is None else round(ms, 3)}
        )  # fmt: skip
        self.turn_number += 1
        piles = self.piles
        for card, pile in plays:
            piles[pile].append(card)
        tops[own_up], tops[own_down], tops[other_up], tops[other_down] = up, down, opponent_up, opponent_down
        self._draw_and_pass(seat, left, opponent_play)
        return True

    def _commit(self, builder: TurnBuilder, turn: Turn) -> None:
        seat = self.to_move
        for play in builder.plays:
            self.piles[play.pile].append(play.card)
        self.tops = builder.tops
        self._draw_and_pass(seat, builder.hand, builder.opponent_play is not None)

    def _draw_and_pass(self, seat: int, hand: list[int], played_on_opponent: bool) -> None:
        """After the plays: draw, then the win test, then pass the turn (or end the game if the opponent is stuck)."""
        draw = self.draw_piles_reversed[seat]
        wanted = HAND_SIZE - len(hand) if played_on_opponent else DRAW_AFTER_OWN_PILES
        if wanted > 0 and draw:
            drawn = draw[-wanted:]  # the next cards are at the end of the reversed pile
            hand += reversed(drawn)
            del draw[-len(drawn) :]
        self.hands[seat] = hand
        if not hand and not draw:
            self._end(
                Outcome(Termination.ALL_CARDS_PLAYED, winner=seat, seat=None, detail=f"seat {seat} played all 58 cards")
            )
            return
        opponent = 1 - seat
        self.to_move = opponent
        if not self._can_move(opponent):
            self._end(Outcome(Termination.STUCK, winner=seat, seat=opponent, detail=self._stuck_detail()))

    def _can_move(self, seat: int) -> bool:
        """Whether `seat` has a legal turn of the minimum length, decided without searching.

        Equivalent to `builder_for(seat).can_complete()` (a test checks the two agree): own piles change
        only through own plays and the opponent's piles take at most one card, so a 2-play turn exists
        exactly when two cards fit the own piles now, or one does and another card fits an opponent pile,
        or the one that fits makes a second card fit by moving its pile (a trick chain).
        """
        hand = self.hands[seat]
        tops = self.tops
        up, down = tops[OWN_UP[seat]], tops[OWN_DOWN[seat]]
        opponent_up, opponent_down = tops[OWN_UP[1 - seat]], tops[OWN_DOWN[1 - seat]]
        own = [card for card in hand if card > up or card < down or card == up - 10 or card == down + 10]
        if len(hand) < MIN_PLAYS:
            return bool(own) or any(card < opponent_up or card > opponent_down for card in hand)
        if len(own) >= 2:
            return True
        if not own:
            return False
        first = own[0]
        if any(card != first and (card < opponent_up or card > opponent_down) for card in hand):
            return True
        after_first = []
        if first > up or first == up - 10:
            after_first.append((first, down))
        if first < down or first == down + 10:
            after_first.append((up, first))
        return any(
            card != first and (card > new_up or card < new_down or card == new_up - 10 or card == new_down + 10)
            for new_up, new_down in after_first
            for card in hand
        )

    def builder_for(self, seat: int) -> FaceToFaceTurn:
        return FaceToFaceTurn(seat, dict(self.tops), list(self.hands[seat]), self.min_plays(seat))

    def _stuck_detail(self) -> str:
        seat = self.to_move
        tops = ", ".join(f"{pile}={top}" for pile, top in self.tops.items())
        hand = sorted(self.hands[seat])
        return f"seat {seat} cannot make a legal turn of {self.min_plays(seat)} play(s) with hand {hand} (piles {tops})"

    def _forfeit_outcome(self, seat: int, termination: Termination, detail: str) -> Outcome:
        return Outcome(termination, winner=1 - seat, seat=seat, detail=detail)

    def cards_not_placed(self) -> int:
        return sum(len(hand) for hand in self.hands) + sum(len(pile) for pile in self.draw_piles_reversed)

    def observation(self, seat: int) -> dict[str, Any]:
        # Written out pile by pile: this runs once per turn and is a tenth of a fast match's time.
        hands, draws, hand = self.hands, self.draw_piles_reversed, self.hands[seat]
        piles = self.piles
        p0_up, p0_down, p1_up, p1_down = piles["p0.up"], piles["p0.down"], piles["p1.up"], piles["p1.down"]
        return {
            "game": GAME_ID,
            "players": 2,
            "seat": seat,
            "to_move": self.to_move,
            "turn": self.turn_number,
            "hand": sorted(hand),
            "hand_sizes": [len(hands[0]), len(hands[1])],
            "hand_size": HAND_SIZE,
            "draw_pile_sizes": [len(draws[0]), len(draws[1])],
            "min_plays": MIN_PLAYS if len(hand) >= MIN_PLAYS else len(hand),
            "piles": {
                "p0.up": {"direction": ASCENDING, "owner": 0, "top": p0_up[-1], "history": p0_up[:]},
                "p0.down": {"direction": DESCENDING, "owner": 0, "top": p0_down[-1], "history": p0_down[:]},
                "p1.up": {"direction": ASCENDING, "owner": 1, "top": p1_up[-1], "history": p1_up[:]},
                "p1.down": {"direction": DESCENDING, "owner": 1, "top": p1_down[-1], "history": p1_down[:]},
            },
            "signals": [],
            "commands": None,
        }
