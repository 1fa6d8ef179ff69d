"""House bot "random": random legal plays one at a time, stopping at random once the turn may end.

A single standard-library file, so it also runs as a plain uploaded bot inside the sandbox. It reads only
the observation. The rules it needs (pile order, the backwards trick, at most one play on the opponent's
piles, Extreme commands) are restated in `_Turn`; greedy.py carries its own copy for the same reason, kept
identical to this one between two marker lines (tests/house/test_shared_rules.py compares them).

Plays are drawn at random; a draw that would lead into a dead end before the turn may end is undone
(Extreme: by backtracking search), so the bot returns a legal turn whenever one exists. It is called once
per turn of cheap random-vs-random benchmarks, so the games without commands take a search-free path that
allocates little.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from typing import Any

STOP_CHANCE = 0.5  # once the turn may end, the chance of ending it before each further play
NODE_BUDGET = 5000  # bounds the backtracking in pathological Extreme positions

_rng: random.Random | None = None


def new_game(info: dict[str, Any]) -> None:
    """Seed from the game's seed and our seat, so a rerun of the same match replays the same turns."""
    global _rng
    _rng = random.Random(f"random-bot:{info.get('seed')}:{info.get('seat')}")


def play(observation: dict[str, Any]) -> dict[str, Any]:
    rng = _rng
    if rng is None:  # no new_game: derive the seed from what we see, so equal observations give equal turns
        rng = random.Random(
            f"random-bot:{observation['game']}:{observation['seat']}:{observation['turn']}:{observation['hand']}"
        )
    if observation.get("commands") is None:
        return {"plays": _plain_turn(observation, rng.random)}
    turn = _Turn(observation)
    path: list[tuple[int, int]] = []
    _walk(turn, rng, path, [NODE_BUDGET], set())
    return {"plays": turn.plays_json(path)}


def _plain_turn(observation: dict[str, Any], draw: Any) -> list[list[Any]]:
    """A turn without Extreme's commands, built play by play with no search: there the only dead end is
    a first play that no second play can follow while the minimum asks for two."""
    ids, kinds = _pile_layout(observation)
    piles = observation["piles"]
    tops = [piles[pile_id]["top"] for pile_id in ids]
    hand = sorted(observation["hand"])
    need = observation["min_plays"]
    plays: list[list[Any]] = []
    opp_free = True
    while hand:
        if len(plays) >= need and draw() < STOP_CHANCE:
            break
        total, spans = _fitting_spans(hand, tops, kinds, opp_free)
        if not total:
            break
        card, pile = _nth_move(hand, spans, int(draw() * total))
        if len(plays) + 1 < need and not _can_follow(spans, hand, tops, kinds, opp_free, card, pile):
            # rare: this first play strands the turn; draw again among the plays that remain
            moves = _plain_moves(hand, tops, kinds, opp_free)
            index = moves.index((card, pile))
            while True:
                moves[index] = moves[-1]
                moves.pop()
                if not moves:
                    return plays
                index = int(draw() * len(moves))
                card, pile = moves[index]
                if _can_follow(spans, hand, tops, kinds, opp_free, card, pile):
                    break
        hand.remove(card)
        tops[pile] = card
        opp_free = opp_free and kinds[pile] < OPP_UP
        plays.append([card, ids[pile]])
    return plays


_layouts: dict[tuple, tuple[list[str], list[int]]] = {}


def _pile_layout(observation: dict[str, Any]) -> tuple[list[str], list[int]]:
    """The pile ids and their kinds as the mover sees them; fixed for a seat's whole game, so computed once."""
    seat = observation["seat"]
    piles = observation["piles"]
    key = (seat, *piles)
    layout = _layouts.get(key)
    if layout is None:
        ids, kinds = [], []
        for pile_id, pile in piles.items():
            owner = pile["owner"]
            up = pile["direction"] == "up"
            ids.append(pile_id)
            kinds.append(
                (OWN_UP if up else OWN_DOWN) if owner is None or owner == seat else (OPP_UP if up else OPP_DOWN)
            )
        layout = _layouts[key] = (ids, kinds)
    return layout


def _fitting_spans(
    hand: list[int], tops: list[int], kinds: list[int], opp_free: bool
) -> tuple[int, list[tuple[int, ...]]]:
    """How many plays are legal, and per pile the cards of the sorted `hand` that fit it, as
    (count, pile, start, end, trick card, trick first).

    Cards that fit a pile in order form a run of the sorted hand; the backwards-trick card, if held, lies
    just outside it. Listed pile by pile in hand order, they are the moves `_plain_moves` lists.
    """
    spans = []
    total = 0
    size = len(hand)
    for pile, kind in enumerate(kinds):
        top = tops[pile]
        if kind == OWN_UP:
            start = bisect_right(hand, top)
            trick = top - 10 if top - 10 in hand else 0
            count = size - start + (trick > 0)
            spans.append((count, pile, start, size, trick, True))
        elif kind == OWN_DOWN:
            end = bisect_left(hand, top)
            trick = top + 10 if top + 10 in hand else 0
            count = end + (trick > 0)
            spans.append((count, pile, 0, end, trick, False))
        elif not opp_free:
            continue
        elif kind == OPP_UP:
            count = bisect_left(hand, top)
            spans.append((count, pile, 0, count, 0, False))
        else:
            start = bisect_right(hand, top)
            count = size - start
            spans.append((count, pile, start, size, 0, False))
        total += count
    return total, spans


def _nth_move(hand: list[int], spans: list[tuple[int, ...]], index: int) -> tuple[int, int]:
    """The move at `index` in the order `_plain_moves` lists them."""
    for count, pile, start, end, trick, trick_first in spans:
        if index < count:
            if trick:
                if trick_first:
                    if index == 0:
                        return trick, pile
                    index -= 1
                elif index == end - start:
                    return trick, pile
            return hand[start + index], pile
        index -= count
    raise IndexError("move index out of range")


def _plain_moves(hand: list[int], tops: list[int], kinds: list[int], opp_free: bool) -> list[tuple[int, int]]:
    """Legal next plays (card, pile index) without commands."""
    moves: list[tuple[int, int]] = []
    for pile, kind in enumerate(kinds):
        top = tops[pile]
        if kind == OWN_UP:
            back = top - 10
            moves += [(card, pile) for card in hand if card > top or card == back]
        elif kind == OWN_DOWN:
            back = top + 10
            moves += [(card, pile) for card in hand if card < top or card == back]
        elif not opp_free:
            continue
        elif kind == OPP_UP:
            moves += [(card, pile) for card in hand if card < top]
        else:
            moves += [(card, pile) for card in hand if card > top]
    return moves


def _can_follow(
    spans: list[tuple[int, ...]],
    hand: list[int],
    tops: list[int],
    kinds: list[int],
    opp_free: bool,
    card: int,
    pile: int,
) -> bool:
    """Whether some play can follow `card` on `pile`, given the `spans` of plays legal before it."""
    on_opponent = kinds[pile] >= OPP_UP
    for count, other_pile, start, _end, trick, _ in spans:  # usually another card fits another pile, untouched
        if other_pile == pile or (on_opponent and kinds[other_pile] >= OPP_UP):
            continue
        if count > 1 or (count == 1 and card != (trick or hand[start])):
            return True
    rest = [other for other in hand if other != card]
    old_top = tops[pile]
    tops[pile] = card
    try:
        return bool(_plain_moves(rest, tops, kinds, opp_free and kinds[pile] < OPP_UP))
    finally:
        tops[pile] = old_top


def _walk(turn: _Turn, rng: random.Random, path: list[tuple[int, int]], budget: list[int], dead_ends: set) -> bool:
    """Randomised depth-first search for a legal turn; `path` holds the plays when it returns True.

    Only Extreme's commands can make a partial turn a dead end worth remembering (`dead_ends`)."""
    can_end = turn.can_end()
    if can_end and (turn.stopped or rng.random() < STOP_CHANCE):
        return True
    budget[0] -= 1
    if budget[0] < 0:
        return can_end
    key = None
    if turn.table is not None and not can_end:
        if turn.hopeless():
            return False
        key = (tuple(turn.hand), tuple(turn.tops), min(turn.n, 3), turn.first, turn.three, turn.skulls)
        if key in dead_ends:
            return False
    moves = turn.moves()
    draw = rng.random
    while moves:
        # take a random remaining move (swap-remove: cheaper than shuffling the whole list up front)
        index = int(draw() * len(moves))
        move = moves[index]
        moves[index] = moves[-1]
        moves.pop()
        undo = turn.apply(move)
        path.append((undo[1], move[1]))
        if _walk(turn, rng, path, budget, dead_ends):
            return True
        path.pop()
        turn.undo(undo)
    if key is not None:
        dead_ends.add(key)
    return can_end


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

    def plays_json(self, path: list[tuple[int, int]]) -> list[list[Any]]:
        return [[card, self.ids[pile]] for card, pile in path]
