"""The Face to Face expert: plans the whole turn, then scores where each possible turn leaves both players.

Planning: a depth-first search over every legal ordering of plays on our own piles (the backwards trick and
trick chains included), merged by the position reached. A card on the opponent's piles never changes
what fits our piles, so it can go anywhere in the turn: each own-pile end position is scored with no such
card and with each card of the hand that fits one of the opponent's piles.

Scoring rests on what each player still has to place. We know our own remaining cards exactly (our 58
minus what we played minus our hand; we remember our plays, or read them from the pile histories when we
did not see the whole game); the opponent's remaining cards are their 58 minus what they played. A
remaining card that still fits both own piles costs nothing, one that fits only one pile costs a little
(more the more cards crowd onto that pile alone), one that fits neither (a "dead" card, placeable only on
the opponent's piles, one per turn) costs a lot. So a play is charged for the remaining cards it jumps
over, and more when it strands them. On top: a short hand after drawing is a risk, a card kept in hand is
worth more than a card placed early (our piles last longer: we place the minimum unless more is cheap),
keeping a card for a backwards trick next turn is a reserve, and a card put on the opponent's piles is
charged for the cards of theirs it brings back into play. Playing all our cards wins at once, and is
always chosen. Once the opponent's draw pile is empty their hand is known: a turn after which they
cannot move wins, and one after which they could play out their hand is charged.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

CARDS = range(2, 60)
HAND_SIZE = 6

# Weights of the end-of-turn score, tuned against the greedy house bot with bench/expert_face_to_face.py.
ONE_PILE_COST = 1.0  # a remaining card that now fits only one of our piles
DEAD_COST = 4.0  # a remaining card that fits neither of our piles
CROWD_COST = 2.0  # grows with the square of the cards left to a single pile
PROGRESS = -4.0  # each card placed this turn (negative: a card kept is worth more than one placed early)
SHORT_HAND_COST = 1.4  # a hand of 6 - k cards after drawing costs this times 1 + 2 + ... + k
TRICK_IN_HAND = 0.5  # a card kept in hand that is a backwards trick on our pile right now
HELP_WEIGHT = 0.3  # how much the opponent's gain from our card on their pile counts against us
THEIR_FINISH_COST = 20.0  # a position from which the opponent (hand known) can play out their hand
WIN = 1e9


# The cards we played this game, remembered from our own turns; the pile histories cannot always tell
# (a card exactly 10 back on a pile is either its owner's trick or the other player's card).
_ours_played: set[int] = set()
_last_turn = -1


def new_game(info: dict[str, Any]) -> None:
    global _last_turn
    _ours_played.clear()
    _last_turn = -1


def play(observation: dict[str, Any]) -> dict[str, Any]:
    global _last_turn
    if observation["turn"] <= _last_turn:  # a new game began without new_game()
        _ours_played.clear()
    _last_turn = observation["turn"]
    view = View(observation, _ours_played)
    plays = best_turn(view)
    _ours_played.update(card for card, _ in plays)
    return {"plays": [[card, view.pile_ids[pile]] for card, pile in plays]}


# pile indices inside a View
UP, DOWN, OPP_UP, OPP_DOWN = 0, 1, 2, 3


class View:
    """What the observation tells us, in the form the search needs."""

    pile_ids: tuple[str, str, str, str]
    tops: list[int]
    hand: list[int]
    min_plays: int
    draw_left: int
    unseen: list[int]  # our draw pile, as a sorted list
    their_remaining: list[int]  # the opponent's cards not yet played (hand and draw pile)
    their_hand: list[int] | None  # known once their draw pile is empty

    def __init__(self, observation: dict[str, Any], remembered: set[int] = frozenset()) -> None:
        seat = observation["seat"]
        other = 1 - seat
        piles = observation["piles"]
        self.pile_ids = (f"p{seat}.up", f"p{seat}.down", f"p{other}.up", f"p{other}.down")
        self.tops = [piles[pile]["top"] for pile in self.pile_ids]
        self.hand = sorted(observation["hand"])
        self.min_plays = observation["min_plays"]
        self.draw_left = observation["draw_pile_sizes"][seat]
        played_count = len(CARDS) - len(self.hand) - self.draw_left
        histories = [piles[pile]["history"] for pile in self.pile_ids]
        if len(remembered) == played_count:
            mine = set(remembered)
            on_piles = Counter(card for history in histories for card in history[1:])
            on_piles.subtract(mine)
            theirs = {card for card, count in on_piles.items() if count > 0}
        else:  # we did not see the whole game: read it from the histories
            mine, theirs = played_cards(histories, set(self.hand), played_count)
        self.unseen = sorted(set(CARDS) - mine - set(self.hand))  # our draw pile
        self.their_remaining = sorted(set(CARDS) - theirs)
        # with their draw pile empty, their hand is exactly what they have not played
        self.their_hand = None
        if observation["draw_pile_sizes"][other] == 0 and len(self.their_remaining) == observation["hand_sizes"][other]:
            self.their_hand = self.their_remaining

    @classmethod
    def of_position(
        cls,
        seat: int,
        tops: dict[str, int],
        hand: list[int],
        draw_pile: list[int],
        their_remaining: list[int],
        their_draw_left: int,
    ) -> View:
        """The view of a player who remembers the whole game, built straight from what it knows: the pile tops,
        its hand, the cards of its draw pile (their order unknown) and the opponent's cards not yet played.
        Equal to the view from an observation with full memory; the analysis's rollouts build thousands."""
        view = cls.__new__(cls)
        other = 1 - seat
        view.pile_ids = (f"p{seat}.up", f"p{seat}.down", f"p{other}.up", f"p{other}.down")
        view.tops = [tops[pile] for pile in view.pile_ids]
        view.hand = sorted(hand)
        view.min_plays = min(2, len(hand))
        view.draw_left = len(draw_pile)
        view.unseen = sorted(draw_pile)
        view.their_remaining = sorted(their_remaining)
        view.their_hand = view.their_remaining if their_draw_left == 0 else None
        return view


def played_cards(histories: list[list[int]], hand: set[int], played_count: int) -> tuple[set[int], set[int]]:
    """Which cards on the piles are ours and which the opponent's, from (our up, our down, their up, their down).

    A step that moves a pile the owner's way is the owner's play; a step back by other than exactly 10 is
    a card from the other player. A step back by exactly 10 is either the owner's trick or the other
    player's card: we settle those by what is in our hand, by no card being played twice by one player,
    and by how many cards we have played in all (`played_count`); any still open count as the owner's.
    """
    sure: list[set[int]] = [set(), set()]
    open_steps: list[tuple[int, int]] = []  # (owner of the pile, card)
    for index, history in enumerate(histories):
        owner, ascending = index // 2, index % 2 == 0
        for previous, card in pairwise(history):
            forward = card > previous if ascending else card < previous
            if forward:
                sure[owner].add(card)
            elif card == (previous - 10 if ascending else previous + 10):
                open_steps.append((owner, card))
            else:
                sure[1 - owner].add(card)
    undecided = []
    for owner, card in open_steps:
        if card in hand or card in sure[0]:
            sure[1].add(card)
        elif card in sure[1]:
            sure[0].add(card)
        else:
            undecided.append((owner, card))
    ours_needed = played_count - len(sure[0])
    for owner, card in undecided:
        if ours_needed <= 0:
            sure[1].add(card)
        elif ours_needed >= len(undecided):
            sure[0].add(card)
        else:
            sure[owner].add(card)
    return sure[0], sure[1]


class Scorer:
    """Scores the end of a turn; the parts that depend only on the opponent's pile are cached."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.unseen_set = set(view.unseen)
        # below[x] = how many unseen cards are < x, for x in 0..61
        self.below = [0] * 62
        count = 0
        for x in range(62):
            self.below[x] = count
            if x in self.unseen_set:
                count += 1
        self._help_cache: dict[tuple[int, int], float] = {}
        self._their_turn_cache: dict[tuple[int, int, tuple[int, int] | None], tuple[bool, bool]] = {}
        self._their_summaries: dict[tuple[int, int], TurnSummary] = {}
        self._their_base = position_cost(*list_fits(view.their_remaining, view.tops[OPP_UP], view.tops[OPP_DOWN]))

    def score(
        self,
        up: int,
        down: int,
        fits: tuple[int, int, int, int],
        kept: int,
        tricks_kept: int,
        played: int,
        dump: tuple[int, int] | None,
    ) -> float:
        """The value of ending the turn with our piles at `up`/`down`, `kept` cards in hand (`tricks_kept` of
        them backwards tricks on our piles), `played` cards placed and `dump` (pile, card) on the opponent's
        piles; `fits` counts our remaining cards (hand and draw pile) against the new tops, as list_fits does."""
        draws = HAND_SIZE - kept if dump is not None else 2
        held = kept + max(0, min(draws, self.view.draw_left))
        if held == 0:
            return WIN
        value = 0.0
        if self.view.their_hand is not None:
            stuck, finishing = self.their_next_turn(up, down, dump)
            if stuck:
                return WIN
            if finishing:
                value -= THEIR_FINISH_COST
        short = max(0, HAND_SIZE - held)
        value += PROGRESS * played - SHORT_HAND_COST * short * (short + 1) / 2 - position_cost(*fits)
        value += TRICK_IN_HAND * tricks_kept
        if dump is not None:
            value -= HELP_WEIGHT * self.help(*dump)
        return value

    def their_next_turn(self, up: int, down: int, dump: tuple[int, int] | None) -> tuple[bool, bool]:
        """With their hand known: whether they will be stuck, and whether they can play out their hand."""
        key = (up, down, dump)
        result = self._their_turn_cache.get(key)
        if result is None:
            their_up, their_down = self.view.tops[OPP_UP], self.view.tops[OPP_DOWN]
            if dump is not None:
                if dump[0] == OPP_UP:
                    their_up = dump[1]
                else:
                    their_down = dump[1]
            summary = self._their_summaries.get((their_up, their_down))
            if summary is None:
                summary = self._their_summaries[their_up, their_down] = TurnSummary(
                    self.view.their_hand, their_up, their_down
                )
            result = summary.options(up, down)
            self._their_turn_cache[key] = result
        return result

    def unseen_fits(self, up: int, down: int) -> tuple[int, int, int, int]:
        """list_fits over our unseen cards, from the prefix counts (called for every end of turn)."""
        below = self.below
        total = below[61]
        fit_up = total - below[up + 1]
        fit_down = below[down]
        fit_both = max(0, below[down] - below[up + 1])
        trick_up, trick_down = up - 10, down + 10
        if trick_up in self.unseen_set:
            fit_up += 1
            if trick_up < down:
                fit_both += 1
            elif trick_up == trick_down:
                fit_down += 1
                fit_both += 1
        if trick_down in self.unseen_set and trick_down != trick_up:
            fit_down += 1
            if trick_down > up:
                fit_both += 1
        return fit_up, fit_down, fit_both, total

    def help(self, pile: int, card: int) -> float:
        """How much our `card` on the opponent's pile improves their position (their cards brought back)."""
        key = (pile, card)
        cached = self._help_cache.get(key)
        if cached is None:
            up, down = self.view.tops[OPP_UP], self.view.tops[OPP_DOWN]
            if pile == OPP_UP:
                up = card
            else:
                down = card
            cached = self._their_base - position_cost(*list_fits(self.view.their_remaining, up, down))
            self._help_cache[key] = cached
        return cached


def list_fits(cards: list[int], up: int, down: int) -> tuple[int, int, int, int]:
    """How many of `cards` fit the ascending pile, the descending pile, both; and how many there are."""
    fit_up = fit_down = fit_both = 0
    trick_up, trick_down = up - 10, down + 10
    for card in cards:
        on_up = card > up or card == trick_up
        on_down = card < down or card == trick_down
        fit_up += on_up
        fit_down += on_down
        fit_both += on_up and on_down
    return fit_up, fit_down, fit_both, len(cards)


def position_cost(fit_up: int, fit_down: int, fit_both: int, total: int) -> float:
    """What the remaining cards cost a player: cards left to a single pile, more so the more crowd one pile,
    and dead cards most."""
    only_up, only_down = fit_up - fit_both, fit_down - fit_both
    dead = total - fit_up - fit_down + fit_both
    crowding = (only_up * only_up + only_down * only_down) / total if total else 0.0
    return ONE_PILE_COST * (only_up + only_down) + CROWD_COST * crowding + DEAD_COST * dead


def best_turn(view: View) -> list[tuple[int, int]]:
    """The legal turn (as (card, pile index) plays) whose end position scores best."""
    hand = view.hand
    own_ends = own_pile_sequences(hand, view.tops[UP], view.tops[DOWN])
    scorer = Scorer(view)
    opp_up, opp_down = view.tops[OPP_UP], view.tops[OPP_DOWN]
    best_score = float("-inf")
    best_path: list[tuple[int, int]] = []
    for (used, up, down), path in own_ends.items():
        kept = [card for i, card in enumerate(hand) if not used >> i & 1]
        trick_up, trick_down = up - 10, down + 10
        tricks_kept = sum(1 for card in kept if card == trick_up or card == trick_down)
        unseen_up, unseen_down, unseen_both, unseen_total = scorer.unseen_fits(up, down)
        kept_up, kept_down, kept_both, kept_total = list_fits(kept, up, down)
        fit_up, fit_down, fit_both = unseen_up + kept_up, unseen_down + kept_down, unseen_both + kept_both
        total = unseen_total + kept_total
        played = len(path)
        if played >= view.min_plays:
            score = scorer.score(up, down, (fit_up, fit_down, fit_both, total), kept_total, tricks_kept, played, None)
            if score > best_score:
                best_score, best_path = score, path
        if played + 1 < view.min_plays:
            continue
        for card in kept:
            dump_up, dump_down = card < opp_up, card > opp_down
            if not (dump_up or dump_down):
                continue
            on_up = card > up or card == trick_up
            on_down = card < down or card == trick_down
            fits = (fit_up - on_up, fit_down - on_down, fit_both - (on_up and on_down), total - 1)
            tricks = tricks_kept - (card == trick_up or card == trick_down)
            for pile, allowed in ((OPP_UP, dump_up), (OPP_DOWN, dump_down)):
                if allowed:
                    score = scorer.score(up, down, fits, kept_total - 1, tricks, played + 1, (pile, card))
                    if score > best_score:
                        best_score, best_path = score, [*path, (card, pile)]
    return best_path


def turn_options(hand: list[int], up: int, down: int, other_up: int, other_down: int) -> tuple[bool, bool]:
    """For a player holding `hand` (their draw pile empty), with piles at `up`/`down` and the other player's
    at `other_up`/`other_down`: whether they have no legal turn (at least 2 plays, or the whole hand if
    smaller), and whether they can play their whole hand this turn (and so win)."""
    return TurnSummary(hand, up, down).options(other_up, other_down)


class TurnSummary:
    """What a player with a known hand can do on their own piles, reduced to what the other player's pile
    tops then decide: whether one card left over can go there."""

    def __init__(self, hand: list[int], up: int, down: int) -> None:
        need = min(2, len(hand))
        everything = (1 << len(hand)) - 1
        self.moves_alone = self.finishes_alone = False
        # lowest / highest card that could be the one play on the other player's piles: to move, to finish
        self.move_low = self.finish_low = 99
        self.move_high = self.finish_high = 0
        for used in {used for used, _, _ in own_pile_sequences(hand, up, down)}:
            played = used.bit_count()
            left = [card for i, card in enumerate(hand) if not used >> i & 1]
            if played >= need:
                self.moves_alone = True
            elif played + 1 >= need:
                self.move_low = min(self.move_low, left[0])
                self.move_high = max(self.move_high, left[-1])
            if used == everything:
                self.finishes_alone = True
            elif len(left) == 1:
                self.finish_low = min(self.finish_low, left[0])
                self.finish_high = max(self.finish_high, left[0])
        self.move_low = min(self.move_low, self.finish_low)  # a finishing turn is a legal turn too
        self.move_high = max(self.move_high, self.finish_high)

    def options(self, other_up: int, other_down: int) -> tuple[bool, bool]:
        """(stuck, can play out the hand) when the other player's piles show `other_up` / `other_down`."""
        can_move = self.moves_alone or self.move_low < other_up or self.move_high > other_down
        can_finish = self.finishes_alone or self.finish_low < other_up or self.finish_high > other_down
        return not can_move, can_finish


def own_pile_sequences(hand: list[int], up: int, down: int) -> dict[tuple[int, int, int], list[tuple[int, int]]]:
    """Every position our own piles can reach this turn: (bit set of hand cards used, up top, down top) ->
    one legal sequence of plays reaching it."""
    reached: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
    path: list[tuple[int, int]] = []
    size = len(hand)

    def visit(used: int, up: int, down: int) -> None:
        key = (used, up, down)
        if key in reached:
            return
        reached[key] = list(path)
        for i in range(size):
            if used >> i & 1:
                continue
            card = hand[i]
            if card > up or card == up - 10:
                path.append((card, UP))
                visit(used | 1 << i, card, down)
                path.pop()
            if card < down or card == down + 10:
                path.append((card, DOWN))
                visit(used | 1 << i, up, card)
                path.pop()

    visit(0, up, down)
    return reached
