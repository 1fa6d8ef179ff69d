"""The Game and The Game Extreme (RULES.md sections 2 and 3): 1-5 players against one shared deck."""

from __future__ import annotations

from typing import Any

from games import commands as cmd
from games.catalog import EXTREME
from games.errors import CommandBroken, IllegalTurn
from games.log import GameLog
from games.moves import SIGNAL_VALUES, Play, Turn, _new_tuple
from games.outcome import Outcome, Termination
from games.state import ASCENDING, DESCENDING, GameState, TurnBuilder, is_trick, pile_fits, pile_rule_text

CARDS = range(2, 100)
DECK_SIZE = len(CARDS)
PILE_IDS = ("up1", "up2", "down1", "down2")
DIRECTION = {"up1": ASCENDING, "up2": ASCENDING, "down1": DESCENDING, "down2": DESCENDING}
START = {ASCENDING: 1, DESCENDING: 100}
HAND_SIZES = {1: 8, 2: 7, 3: 6, 4: 6, 5: 6}


def infinity_in_force(tops: dict[str, int], table: dict[int, str]) -> dict[str, str]:
    """{pile: command} for every pile whose top card carries an infinity command."""
    in_force = {}
    for pile, top in tops.items():
        command = table.get(top)
        if command in cmd.INFINITY:
            in_force[pile] = command
    return in_force


class CoopTurn(TurnBuilder):
    PILE_IDS = PILE_IDS
    __slots__ = ("table", "min_plays", "first_pile", "stop_at", "three_at", "skulls")

    COMMAND_RULES = frozenset({"stop", "stop-not-third", "three", "skull-uncovered", "one-pile", "no-trick", "silence"})

    def __init__(self, tops: dict[str, int], hand: list[int], table: dict[int, str], min_plays: int) -> None:
        self.tops = tops
        self.hand = hand
        self.plays = []
        self.table = table
        self.min_plays = min_plays
        self.first_pile: str | None = None
        self.stop_at: int | None = None
        self.three_at: int | None = None
        self.skulls: dict[str, int] = {}  # pile -> index of the uncovered skull play

    def copy(self) -> CoopTurn:
        clone = CoopTurn(dict(self.tops), list(self.hand), self.table, self.min_plays)
        clone.plays = list(self.plays)
        clone.first_pile = self.first_pile
        clone.stop_at = self.stop_at
        clone.three_at = self.three_at
        clone.skulls = dict(self.skulls)
        return clone

    def hopeless(self) -> bool:
        # Only a card played on a skull's own pile covers it, and the hand only shrinks.
        for pile in self.skulls:
            top, direction = self.tops[pile], DIRECTION[pile]
            if not any(pile_fits(card, top, direction) or is_trick(card, top, direction) for card in self.hand):
                return True
        return False

    def search_key(self) -> tuple:
        return (
            frozenset(self.hand),
            tuple(self.tops.values()),
            min(len(self.plays), 3),
            self.first_pile,
            self.stop_at is None,
            self.three_at is None,
            frozenset(self.skulls),
        )

    def reason(self, card: int, pile: str) -> str | None:
        # The commands are judged before the basic rules: a play that breaks both is a broken command
        # (RULES.md section 3).
        count = len(self.plays)
        if self.stop_at is not None:
            return "stop"
        if self.three_at is not None and count >= 3:
            return "three"
        top = self.tops.get(pile)
        if self.table:
            in_force = infinity_in_force(self.tops, self.table).values()
            if in_force:
                if count and pile != self.first_pile and cmd.ONE_PILE in in_force:
                    return "one-pile"
                if cmd.NO_TRICK in in_force and top is not None and is_trick(card, top, DIRECTION[pile]):
                    return "no-trick"
            command = self.table.get(card)
            if command == cmd.STOP and self.three_at is not None and count + 1 != 3:
                return "stop-not-third"
            if command == cmd.THREE and count + 1 > 3:
                return "three"
        if card not in self.hand:
            return "played-twice" if any(play.card == card for play in self.plays) else "not-in-hand"
        if top is None:
            return "unknown-pile"
        direction = DIRECTION[pile]
        if not pile_fits(card, top, direction) and not is_trick(card, top, direction):
            return "pile-order"
        return None

    def apply(self, card: int, pile: str) -> None:
        self.hand.remove(card)
        self.tops[pile] = card
        self.plays.append(_new_tuple(Play, (card, pile)))
        index = len(self.plays)
        if self.first_pile is None:
            self.first_pile = pile
        self.skulls.pop(pile, None)
        command = self.table.get(card) if self.table else None
        if command == cmd.SKULL:
            self.skulls[pile] = index
        elif command == cmd.STOP:
            self.stop_at = index
        elif command == cmd.THREE:
            self.three_at = index

    def end_reason(self) -> str | None:
        count = len(self.plays)
        if count == 0:
            return "empty-turn"
        if self.skulls:
            return "skull-uncovered"
        if self.three_at is not None and count != 3:
            return "three"
        if self.stop_at is None and self.three_at is None and count < self.min_plays:
            return "too-few-plays"
        return None

    def describe(self, rule: str, card: int | None = None, pile: str | None = None) -> str:
        count = len(self.plays)
        if rule == "pile-order":
            top, direction = self.tops[pile], DIRECTION[pile]
            name = "ascending" if direction == ASCENDING else "descending"
            return f"{card} cannot go on {name} pile {pile} showing {top}: {pile_rule_text(top, direction, CARDS)}"
        if rule == "no-trick":
            where = self._in_force_at(cmd.NO_TRICK)
            return (
                f"{card} on {pile} showing {self.tops[pile]} would use the backwards trick, "
                f"but no-trick ({where}) is in force"
            )
        if rule == "one-pile":
            where = self._in_force_at(cmd.ONE_PILE)
            return (
                f"{card} cannot go on {pile}: one-pile ({where}) is in force, so every play must go on "
                f"{self.first_pile}, the pile of the turn's first play"
            )
        if rule == "stop":
            stop = self.plays[self.stop_at - 1]
            return f"{card} on {pile} comes after the stop card {stop.card} (play {self.stop_at}), which ended the turn"
        if rule == "stop-not-third":
            three = self.plays[self.three_at - 1]
            return (
                f"stop card {card} on {pile} would be play {count + 1}, but while three (card {three.card}, "
                f"play {self.three_at}) is in force stop may only be the third card"
            )
        if rule == "three":
            if card is not None and self.three_at is None:
                return (
                    f"three card {card} on {pile} would be play {count + 1}, "
                    "but three requires exactly 3 plays in the turn"
                )
            three = self.plays[self.three_at - 1]
            if card is not None:
                return (
                    f"{card} on {pile} would be play {count + 1}, but three (card {three.card}, "
                    f"play {self.three_at}) allows exactly 3 plays"
                )
            return f"three (card {three.card}, play {self.three_at}) requires exactly 3 plays; the turn has {count}"
        if rule == "skull-uncovered":
            pile, index = next(iter(self.skulls.items()))
            return (
                f"the skull card {self.plays[index - 1].card} on {pile} (play {index}) "
                "was not covered before the turn ended"
            )
        if rule == "empty-turn":
            return "a turn needs at least one play"
        if rule == "too-few-plays":
            return f"the turn has {count} play(s); at least {self.min_plays} are required while the draw pile has cards"
        return super().describe(rule, card, pile)

    def _in_force_at(self, command: str) -> str:
        piles = [pile for pile, name in infinity_in_force(self.tops, self.table).items() if name == command]
        return ", ".join(f"card {self.tops[pile]} on {pile}" for pile in piles)


class CoopState(GameState):
    """The Game (no command table) or The Game Extreme (with one)."""

    def __init__(
        self,
        game_id: str,
        players: int,
        deck: list[int],
        start_seat: int,
        seed: str,
        hand_size: int,
        table: dict[int, str],
    ) -> None:
        self.game_id = game_id
        self.players = players
        self.hand_size = hand_size
        self.table = table
        self.deck = list(deck)
        self.hands = [self.deck[seat * hand_size : (seat + 1) * hand_size] for seat in range(players)]
        self.draw_pile_reversed = self.deck[players * hand_size :][::-1]  # pop() takes the next card
        self.piles = {pile: [START[DIRECTION[pile]]] for pile in PILE_IDS}
        self.tops = {pile: START[DIRECTION[pile]] for pile in PILE_IDS}
        self.signals = [dict.fromkeys(PILE_IDS, "none") for _ in range(players)]
        self.turn_number = 0
        self.outcome = None
        self.to_move = start_seat
        options = {
            "players": players,
            "hand_size": hand_size,
            "command_table": cmd.table_json(table) if game_id == EXTREME else None,
        }
        self.log = GameLog(game_id, options, seed, start_seat, [list(self.deck)])
        self.log.set_bots([(None, None)] * players)
        self._next_mover(start_seat)

    def with_hidden_cards(self, hands: list[list[int]], draw_piles: list[list[int]]) -> CoopState:
        """This position with other hands and draw pile (`draw_piles` holds the one draw pile, in draw order):
        a guess at the cards a player cannot see, for search (bots/analysis). The cards not placed stay the
        same, only their places change. The copy's log holds just the turns played on it."""
        if len(hands) != self.players or len(draw_piles) != 1:
            raise ValueError(f"expected {self.players} hand(s) and one draw pile")
        before = [card for hand in self.hands for card in hand] + self.draw_pile_reversed
        after = [card for hand in hands for card in hand] + list(draw_piles[0])
        if sorted(before) != sorted(after) or [len(hand) for hand in hands] != [len(hand) for hand in self.hands]:
            raise ValueError("the hands and draw pile must hold the cards not placed, with every hand its size")
        copy = CoopState.__new__(CoopState)
        copy.game_id, copy.players, copy.hand_size, copy.table = self.game_id, self.players, self.hand_size, self.table
        copy.deck = self.deck
        copy.hands = [list(hand) for hand in hands]
        copy.draw_pile_reversed = draw_piles[0][::-1]
        copy.piles = {pile: list(history) for pile, history in self.piles.items()}
        copy.tops = dict(self.tops)
        copy.signals = [dict(signals) for signals in self.signals]
        copy.turn_number = self.turn_number
        copy.outcome = self.outcome
        copy.to_move = self.to_move
        copy.log = GameLog(self.game_id, self.log.options, self.log.seed, self.to_move, [])
        return copy

    def min_plays(self) -> int:
        return 2 if self.draw_pile_reversed else 1

    def builder(self) -> CoopTurn:
        return CoopTurn(dict(self.tops), list(self.hands[self.to_move]), self.table, self.min_plays())

    def check(self, turn: Turn) -> TurnBuilder:
        try:
            return super().check(turn)
        except IllegalTurn as error:
            if error.rule in ("empty-turn", "too-few-plays"):
                # A turn that ends breaking a basic rule and silence at once is a broken command (RULES.md
                # section 3). Its plays were all legal, so the tops after them are simply their cards.
                tops = dict(self.tops)
                tops.update((pile, card) for card, pile in turn.plays)
                self._check_silence(tops, turn.signals)
            raise

    def _check_signals(self, builder: TurnBuilder, signals: tuple[tuple[str, str], ...]) -> None:
        self._check_silence(builder.tops, signals)  # the command first, as for plays
        for pile, value in signals:
            if pile not in DIRECTION:
                raise IllegalTurn(
                    f"signal for {pile!r}: there is no such pile; the piles are {', '.join(PILE_IDS)}",
                    rule="unknown-pile",
                )
            if value not in SIGNAL_VALUES:
                raise IllegalTurn(f"signal {value!r} for {pile}: use none, keep-off or jump", rule="signals")

    def _check_silence(self, tops: dict[str, int], signals: tuple[tuple[str, str], ...]) -> None:
        silenced = [pile for pile, name in infinity_in_force(tops, self.table).items() if name == cmd.SILENCE]
        if silenced and any(value != "none" for _, value in signals):
            where = ", ".join(f"card {tops[pile]} on {pile}" for pile in silenced)
            raise CommandBroken(f"signals cannot be set while silence ({where}) is in force", rule="silence")

    def _commit(self, builder: TurnBuilder, turn: Turn) -> None:
        seat = self.to_move
        for play in builder.plays:
            self.piles[play.pile].append(play.card)
        self.tops = builder.tops
        hand = builder.hand
        in_force = infinity_in_force(self.tops, self.table) if self.table else {}
        wanted = 1 if cmd.DRAW_ONE in in_force.values() else self.hand_size - len(hand)
        draw = self.draw_pile_reversed
        for _ in range(min(max(wanted, 0), len(draw))):
            hand.append(draw.pop())
        self.hands[seat] = hand
        self.signals[seat].update(turn.signals)
        if cmd.SILENCE in in_force.values():
            for seat_signals in self.signals:
                seat_signals.update(dict.fromkeys(PILE_IDS, "none"))
        self._next_mover((seat + 1) % self.players)

    def _next_mover(self, first_candidate: int) -> None:
        """Pass the turn to the next seat holding cards, ending the game if none can (or must) move."""
        for step in range(self.players):
            seat = (first_candidate + step) % self.players
            if self.hands[seat]:
                break
        else:
            self._end(Outcome(Termination.ALL_CARDS_PLAYED, score=0, detail="all 98 cards were placed"))
            return
        self.to_move = seat
        if not self._can_move(seat):
            left = self.cards_not_placed()
            tops = ", ".join(f"{pile}={top}" for pile, top in self.tops.items())
            detail = (
                f"seat {seat} cannot make a legal turn of {self.min_plays()} play(s) with hand "
                f"{sorted(self.hands[seat])} (piles {tops}); {left} card(s) not placed"
            )
            self._end(Outcome(Termination.STUCK, score=left, seat=seat, detail=detail))

    def _can_move(self, seat: int) -> bool:
        if not self.table and self._plain_turn_exists(self.hands[seat]):
            return True
        return self.builder().can_complete()

    def _plain_turn_exists(self, hand: list[int]) -> bool:
        """Without commands, two cards that each fit some pile now can always be played together
        (on one pile: the trick card, or the nearer card, first); one suffices once the draw pile is empty."""
        needed = self.min_plays()
        up1, up2, down1, down2 = self.tops["up1"], self.tops["up2"], self.tops["down1"], self.tops["down2"]
        fitting = 0
        for card in hand:
            if (
                card > up1
                or card > up2
                or card < down1
                or card < down2
                or card == up1 - 10
                or card == up2 - 10
                or card == down1 + 10
                or card == down2 + 10
            ):
                fitting += 1
                if fitting >= needed:
                    return True
        return False

    def _forfeit_outcome(self, seat: int, termination: Termination, detail: str) -> Outcome:
        return Outcome(termination, score=self.cards_not_placed(), seat=seat, detail=detail)

    def cards_not_placed(self) -> int:
        return sum(len(hand) for hand in self.hands) + len(self.draw_pile_reversed)

    def observation(self, seat: int) -> dict[str, Any]:
        commands = None
        if self.game_id == EXTREME:
            commands = {
                "table": {str(card): name for card, name in sorted(self.table.items())},
                "in_force": infinity_in_force(self.tops, self.table),
            }
        return {
            "game": self.game_id,
            "players": self.players,
            "seat": seat,
            "to_move": self.to_move,
            "turn": self.turn_number,
            "hand": sorted(self.hands[seat]),
            "hand_sizes": [len(hand) for hand in self.hands],
            "hand_size": self.hand_size,
            "draw_pile_sizes": [len(self.draw_pile_reversed)],
            "min_plays": self.min_plays(),
            "piles": {
                pile: {"direction": DIRECTION[pile], "owner": None, "top": self.tops[pile], "history": list(history)}
                for pile, history in self.piles.items()
            },
            "signals": [dict(signals) for signals in self.signals],
            "commands": commands,
        }
