"""House bot "greedy": the play that moves a pile least, until the turn may end; then every trick left.

A single standard-library file, so it also runs as a plain uploaded bot inside the sandbox. It reads only
the observation. The rules it needs (pile order, the backwards trick, at most one play on the opponent's
piles, Extreme commands) are restated in `_Turn`; random_bot.py carries its own copy for the same reason, kept
identical to this one between two marker lines (tests/house/test_shared_rules.py compares them).

Movement is how far a play pushes its pile: card minus top on an ascending pile, -10 for a backwards trick,
and on an opponent's pile how far it pushes their pile back. A play is only chosen if the turn can still
be finished legally after it (so the bot never walks into a dead end, e.g. an uncoverable skull).
Ties go to the lower card, then the pile listed first. It sends no signals.
"""

from __future__ import annotations

from typing import Any


def play(observation: dict[str, Any]) -> dict[str, Any]:
    turn = _Turn(observation)
    plays: list[list[Any]] = []
    while True:
        can_end = turn.can_end()
        if can_end and turn.stopped:
            break
        best = None
        for move in turn.moves():
            movement = turn.movement(move)
            if can_end and movement != -10:  # the turn may end: only tricks are still worth a card
                continue
            key = (movement, turn.hand[move[0]], move[1])
            if best is not None and key >= best[0]:
                continue
            undo = turn.apply(move)
            completable = turn.completable()
            turn.undo(undo)
            if completable:
                best = (key, move)
        if best is None:
            break
        card = turn.hand[best[1][0]]
        turn.apply(best[1])
        plays.append([card, turn.ids[best[1][1]]])
    return {"plays": plays}


# --- the rules a turn must follow, as seen from one observation ----------------------------------------
# greedy.py and random_bot.py keep this part identical down to the end marker (tests/house/test_shared_rules.py).

# pile kinds: the mover's own (or a shared co-op) ascending / descending pile, the opponent's ascending / descending
OWN_UP, OWN_DOWN, OPP_UP, OPP_DOWN = 0, 1, 2, 3


class _Turn:
    """The position inside the mover's turn: pile tops, hand left and the turn's command obligations."""

    __slots__ = (
        "ids",
        "kinds",
        "tops",
        "hand",
        "min_plays",
        "table",
        "n",
        "opp_used",
        "first",
        "three",
        "skulls",
        "stopped",
    )

    def __init__(self, observation: dict[str, Any]) -> None:
        seat = observation["seat"]
        self.ids: list[str] = []
        self.kinds: list[int] = []
        self.tops: list[int] = []
        for pile_id, pile in observation["piles"].items():
            owner = pile["owner"]
            up = pile["direction"] == "up"
            if owner is None or owner == seat:
                self.kinds.append(OWN_UP if up else OWN_DOWN)
            else:
                self.kinds.append(OPP_UP if up else OPP_DOWN)
            self.ids.append(pile_id)
            self.tops.append(pile["top"])
        self.hand: list[int] = list(observation["hand"])
        self.min_plays: int = observation["min_plays"]
        commands = observation.get("commands")
        self.table: dict[int, str] | None = (
            {int(card): name for card, name in commands["table"].items()} if commands else None
        )
        self.n = 0  # plays made so far in this turn
        self.opp_used = False
        self.first = -1  # pile index of the turn's first play (for one-pile)
        self.three = False  # a `three` card was played: the turn has exactly 3 plays
        self.skulls = 0  # bit set of the piles whose top is a `skull` played this turn, not yet covered
        self.stopped = False

    def moves(self) -> list[tuple[int, int]]:
        """Legal next plays as (hand index, pile index)."""
        if self.stopped or (self.three and self.n >= 3):
            return []
        tops, kinds, table = self.tops, self.kinds, self.table
        trick = True
        only_pile = -1
        if table is not None:
            for top in tops:
                command = table.get(top)
                if command == "no-trick":
                    trick = False
                elif command == "one-pile" and self.n > 0:
                    only_pile = self.first
        hand = self.hand
        result: list[tuple[int, int]] = []
        for pile, kind in enumerate(kinds):
            if only_pile >= 0 and pile != only_pile:
                continue
            top = tops[pile]
            if kind == OWN_UP:
                back = top - 10 if trick else 0
                result += [(index, pile) for index, card in enumerate(hand) if card > top or card == back]
            elif kind == OWN_DOWN:
                back = top + 10 if trick else 0
                result += [(index, pile) for index, card in enumerate(hand) if card < top or card == back]
            elif self.opp_used:
                continue
            elif kind == OPP_UP:
                result += [(index, pile) for index, card in enumerate(hand) if card < top]
            else:
                result += [(index, pile) for index, card in enumerate(hand) if card > top]
        if table is not None:
            result = [move for move in result if self._command_allows(table.get(hand[move[0]]), move[1])]
        return result

    def _command_allows(self, command: str | None, pile: int) -> bool:
        if command == "three":
            return self.n < 3
        if command == "stop":
            # the turn ends here: no skull may stay uncovered, and under `three` only the third card may stop
            return self.skulls & ~(1 << pile) == 0 and (not self.three or self.n == 2)
        return True

    def hopeless(self) -> bool:
        """A quick test for obligations no continuation can meet: an uncoverable skull, too few cards for three."""
        if self.three and len(self.hand) < 3 - self.n:
            return True
        skulls = self.skulls
        pile = 0
        while skulls:
            if skulls & 1:
                top, kind = self.tops[pile], self.kinds[pile]
                if kind == OWN_UP:
                    coverable = any(card > top or card == top - 10 for card in self.hand)
                else:
                    coverable = any(card < top or card == top + 10 for card in self.hand)
                if not coverable:
                    return True
            skulls >>= 1
            pile += 1
        return False

    def can_end(self) -> bool:
        if self.skulls:
            return False
        if self.three:
            return self.n == 3
        return self.stopped or self.n >= self.min_plays

    def apply(self, move: tuple[int, int]) -> tuple:
        index, pile = move
        card = self.hand.pop(index)
        undo = (
            index,
            card,
            pile,
            self.tops[pile],
            self.n,
            self.opp_used,
            self.first,
            self.three,
            self.skulls,
            self.stopped,
        )
        self.tops[pile] = card
        self.n += 1
        if self.kinds[pile] >= OPP_UP:
            self.opp_used = True
        if self.first < 0:
            self.first = pile
        if self.table is not None:
            self.skulls &= ~(1 << pile)
            command = self.table.get(card)
            if command == "skull":
                self.skulls |= 1 << pile
            elif command == "three":
                self.three = True
            elif command == "stop":
                self.stopped = True
        return undo

    def undo(self, undo: tuple) -> None:
        index, card, pile, top, self.n, self.opp_used, self.first, self.three, self.skulls, self.stopped = undo
        self.hand.insert(index, card)
        self.tops[pile] = top

    # --- end of the rules greedy.py and random_bot.py share; what only this bot needs follows -----------------

    def movement(self, move: tuple[int, int]) -> int:
        card, top, kind = self.hand[move[0]], self.tops[move[1]], self.kinds[move[1]]
        if kind == OWN_UP or kind == OPP_DOWN:
            return card - top
        return top - card

    def completable(self, dead_ends: set | None = None) -> bool:
        """Whether some continuation (possibly none) makes this a legal turn."""
        if self.can_end():
            return True
        if self.table is not None and self.hopeless():
            return False
        if dead_ends is None:
            dead_ends = set()
        key = (tuple(self.hand), tuple(self.tops), min(self.n, 3), self.opp_used, self.first, self.three, self.skulls)
        if key in dead_ends:
            return False
        for move in self.moves():
            undo = self.apply(move)
            done = self.completable(dead_ends)
            self.undo(undo)
            if done:
                return True
        dead_ends.add(key)
        return False
