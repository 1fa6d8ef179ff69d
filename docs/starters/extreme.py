"""Starter bot for The Game Extreme (`extreme`, cooperative). Copy it, then make it smarter.

Strategy: the shortest legal turn it can find, preferring plain number cards that move a pile least,
then backwards tricks while they are on offer. It models the commands: `stop` ends the turn (even
below the minimum), `skull` must be covered on the same pile, `three` makes the turn exactly 3 cards,
and while their card is on top `no-trick` forbids tricks and `one-pile` keeps the turn on one pile.
It sends no signals (`silence` would forbid them anyway). Standard library only.
"""

INFINITY = {"silence", "no-trick", "one-pile", "draw-one"}


class Turn:
    def __init__(self, observation):
        self.table = observation["commands"]["table"]
        self.directions = {name: pile["direction"] for name, pile in observation["piles"].items()}
        self.tops = {name: pile["top"] for name, pile in observation["piles"].items()}
        self.hand = list(observation["hand"])
        self.minimum = observation["min_plays"]
        self.plays = []
        self.stopped = False
        self.skull = None  # the pile whose skull must still be covered
        self.three = False

    def in_force(self):
        return {self.table.get(str(top)) for top in self.tops.values()} & INFINITY

    def moves(self):
        """Legal next plays as (cost, card, pile), cheapest first; command cards cost extra."""
        if self.stopped or (self.three and len(self.plays) == 3):
            return []
        in_force = self.in_force()
        piles = [self.plays[0][1]] if "one-pile" in in_force and self.plays else list(self.tops)
        if self.skull is not None:
            piles = [pile for pile in piles if pile == self.skull]
        found = []
        for card in self.hand:
            command = self.table.get(str(card))
            if command == "stop" and self.three and len(self.plays) != 2:
                continue
            for pile in piles:
                top, up = self.tops[pile], self.directions[pile] == "up"
                trick = "no-trick" not in in_force and card == (top - 10 if up else top + 10)
                if (card > top if up else card < top) or trick:
                    found.append(((card - top if up else top - card) + (50 if command else 0), card, pile))
        return sorted(found)

    def can_end(self):
        if self.skull is not None or (self.three and len(self.plays) != 3):
            return False
        return self.stopped or len(self.plays) >= self.minimum

    def push(self, card, pile):
        command = self.table.get(str(card))
        self.plays.append([card, pile])
        self.hand.remove(card)
        if self.skull == pile:
            self.skull = None
        self.tops[pile] = card
        self.stopped = self.stopped or command == "stop"
        self.skull = pile if command == "skull" else self.skull
        self.three = self.three or command == "three"

    def copy(self):
        twin = Turn.__new__(Turn)
        twin.__dict__ = {
            key: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
            for key, v in self.__dict__.items()
        }
        twin.table = self.table
        return twin


def search(turn, depth):
    if turn.can_end():
        return turn
    if depth == 0:
        return None
    for _, card, pile in turn.moves():
        after = turn.copy()
        after.push(card, pile)
        found = search(after, depth - 1)
        if found is not None:
            return found
    return None


def play(observation):
    turn = search(Turn(observation), 4) or Turn(observation)
    while True:  # take the backwards tricks still on offer with plain cards
        tricks = [move for move in turn.moves() if move[0] == -10 and str(move[1]) not in turn.table]
        if not tricks or not turn.can_end():
            break
        turn.push(tricks[0][1], tricks[0][2])
    return {"plays": turn.plays}
