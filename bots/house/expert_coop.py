"""Expert house bot for the co-op games, The Game (`the-game`) and The Game Extreme (`extreme`).

It sees only the observation (docs/engine-api.md) and imports only the standard library, so it also runs
as an uploaded bot. Each turn it searches the orderings of its hand depth-first (branch and bound) and
picks the turn that wastes least. Waste is counted on the cards still in play (own hand and unseen): moving
a pile shuts the cards it jumps over out of that pile, and each shut-out card costs more the fewer piles it
can still go on (losing its last pile costs a full card). A backwards trick earns its reopened cards back.
Plays beyond the minimum are made only when they waste little; with the draw pile empty the bot places as
many cards as it can. The best turns found are re-ranked by how well the piles still reach the cards in
play. The search stops at a node limit or after 100 ms, whichever comes first, with the best turn found.
After its plays it signals `keep-off` on piles where it holds a close fit and `jump` where it holds a trick
card it could not use, and it shies away from piles its partners flagged.
In Extreme the search obeys every command and prices the infinity commands it leaves on top.

The bot keeps no memory between turns: everything it needs is in the observation, so one module can serve
every seat of a game in the same process.
"""

import math
import time
from dataclasses import dataclass
from typing import Any

HIGHEST_CARD = 99
STOP, SKULL, THREE = "stop", "skull", "three"
SILENCE, NO_TRICK, ONE_PILE, DRAW_ONE = "silence", "no-trick", "one-pile", "draw-one"
COMMAND_NAMES = frozenset({STOP, SKULL, THREE, SILENCE, NO_TRICK, ONE_PILE, DRAW_ONE})
KEEP_OFF, JUMP, NO_SIGNAL = "keep-off", "jump", "none"


@dataclass(frozen=True)
class Tuning:
    """The weights of the bot's judgement, measured with bench/expert_coop.py."""

    # risk that a card still in play is never placed, when it fits 0, 1, 2, 3 or 4 piles
    badness: tuple[float, float, float, float, float] = (10.0, 0.85, 0.35, 0.1, 0.0)
    extra_play_bonus: float = 0.2  # an extra play is made if it wastes less than this
    extra_bonus_late: float = 1.0  # ... once the draw pile is nearly empty (grows linearly)
    late_draw_pile: int = 10  # draw pile size below which the bonus starts to grow
    empty_bonus_solo: float = 1000.0  # solo with no draw pile: every card placed now is a card won
    empty_bonus_team: float = 2.0  # team with no draw pile: partners still need room on the piles
    relief_weight: float = 0.6  # share of a card's own risk that playing it sheds
    outlook_weight: float = 0.0  # weight of the cheapest next turn the cards kept in hand allow
    crowding_weight: float = 0.02  # per pair of cards that fit one and the same pile only
    reach_weight: float = 0.3  # weight of the reach risk when re-ranking the best turns found
    reach_scale: float = 10.0  # in-play cards between a pile and a card that halve the pile's reach
    reach_steepness: float = 2.0  # how fast a card's risk falls as its reach grows
    candidates: int = 8  # how many of the best turns found are re-ranked by reach
    keep_off_penalty: float = 1.5  # cost of a costly move on a pile a partner asked to keep off
    keep_off_tolerance: float = 0.5  # moves wasting at most this ignore a keep-off signal
    jump_penalty: float = 2.0  # cost of burying a partner's backwards trick
    keep_off_signal: float = 0.6  # signal keep-off when holding a card that wastes at most this
    draw_one_penalty: float = 1.0  # per card not drawn because a draw-one is left on top
    one_pile_penalty: float = 3.0  # leaving a one-pile on top
    no_trick_penalty: float = 0.5  # leaving a no-trick on top
    silence_penalty: float = 0.2  # leaving a silence on top (team games only)
    stop_card_value: float = 0.5  # playing a stop card spends an emergency exit
    node_limit: int = 2_500  # search nodes per turn; past it the best turn found so far is taken
    time_limit: float = 0.1  # seconds of search per turn, the same cut-off for a slow or busy machine


THE_GAME_TUNING = Tuning()
EXTREME_TUNING = Tuning()


def play(observation: dict[str, Any], tuning: Tuning | None = None) -> dict[str, Any]:
    """Choose this turn's plays and signals for a `the-game` or `extreme` observation (with the game's own
    tuning unless one is given: the analysis's rollouts search without a clock, so that they are reproducible)."""
    game = observation.get("game")
    if game not in ("the-game", "extreme"):
        raise ValueError(f"expert_coop plays the-game and extreme, not {game!r}")
    if tuning is None:
        tuning = EXTREME_TUNING if game == "extreme" else THE_GAME_TUNING
    planner = Planner(observation, tuning)
    plays = planner.best_plays()
    turn: dict[str, Any] = {"plays": [[card, planner.names[pile]] for card, pile in plays]}
    signals = planner.signals_after(plays)
    if signals is not None:
        turn["signals"] = signals
    return turn


def command_table(commands: dict[str, Any] | None) -> dict[int, str]:
    """The observation's command table as {card: command}; accepts {card: command} or {command: [cards]}."""
    if not commands:
        return {}
    by_card: dict[int, str] = {}
    for key, value in (commands.get("table") or {}).items():
        if key in COMMAND_NAMES and isinstance(value, (list, tuple)):
            for card in value:
                by_card[int(card)] = key
        else:
            by_card[int(key)] = str(value)
    return by_card


class Planner:
    """One turn's decision: the search over orderings and the signals that follow it."""

    def __init__(self, observation: dict[str, Any], tuning: Tuning) -> None:
        self.tuning = tuning
        badness = tuning.badness
        self.badness = badness
        self.relief = tuple(tuning.relief_weight * value for value in badness)
        # weights[n]: cost of shutting a card out of one of its n piles
        self.weights = (0.0, *(badness[n - 1] - badness[n] for n in range(1, 5)))
        self.seat = observation["seat"]
        self.players = observation["players"]
        piles = observation["piles"]
        self.names = list(piles)
        self.up = tuple(piles[name]["direction"] == "up" for name in self.names)
        self.tops = tuple(piles[name]["top"] for name in self.names)
        self.hand = tuple(sorted(observation["hand"]))
        self.min_plays = observation["min_plays"]
        self.draw_pile = sum(observation["draw_pile_sizes"])
        self.commands = command_table(observation.get("commands"))
        placed = {card for pile in piles.values() for card in pile["history"]}
        # prefix[v] = cards still in play (own hand included) below v
        self.prefix = [0] * (HIGHEST_CARD + 3)
        for value in range(HIGHEST_CARD + 2):
            in_play = 2 <= value <= HIGHEST_CARD and value not in placed
            self.prefix[value + 1] = self.prefix[value] + in_play
        self.in_play = [card for card in range(2, HIGHEST_CARD + 1) if card not in placed]
        self.partner_flags = self._partner_flags(observation.get("signals") or [])
        self.bonus = self._extra_bonus()

    # ---- evaluation -------------------------------------------------------------------------------

    def _extra_bonus(self) -> float:
        t = self.tuning
        if self.draw_pile == 0:
            return t.empty_bonus_solo if self.players == 1 else t.empty_bonus_team
        if self.draw_pile >= t.late_draw_pile:
            return t.extra_play_bonus
        share = 1 - self.draw_pile / t.late_draw_pile
        return t.extra_play_bonus + share * (t.extra_bonus_late - t.extra_play_bonus)

    def _partner_flags(self, signals: list[dict[str, str]]) -> tuple[tuple[bool, bool], ...]:
        """Per pile: (some partner asked to keep off, some partner holds a trick card for it)."""
        flags = []
        for name in self.names:
            values = [seat_signals.get(name) for seat, seat_signals in enumerate(signals) if seat != self.seat]
            flags.append((KEEP_OFF in values, JUMP in values))
        return tuple(flags)

    def fits(self, pile: int, top: int, card: int, no_trick: bool) -> bool:
        if self.up[pile]:
            return card > top or (card == top - 10 and not no_trick)
        return card < top or (card == top + 10 and not no_trick)

    def waste(self, tops: tuple[int, ...], pile: int, card: int, played: tuple[int, ...]) -> float:
        """What moving `pile` from its top to `card` costs (negative: a trick reopens cards)."""
        top = tops[pile]
        if self.up[pile] == (card > top):
            low, high, sign = min(top, card), max(top, card), 1.0
        else:
            low, high, sign = min(top, card), max(top, card), -1.0
        if high - low < 2:
            return 0.0
        # Cards between two neighbouring tops share the same other piles, so count them in runs.
        cuts = sorted(t for other, t in enumerate(tops) if other != pile and low < t < high)
        cuts.append(high)
        prefix, weights, up = self.prefix, self.weights, self.up
        total = 0.0
        start = low
        for end in cuts:
            if end - start >= 2:
                count = prefix[end] - prefix[start + 1]
                for card_played in played:
                    if start < card_played < end:
                        count -= 1
                if count:
                    options = 1
                    for other, t in enumerate(tops):
                        if other != pile and (t <= start if up[other] else t >= end):
                            options += 1
                    total += count * weights[options]
            start = end
        return sign * total

    def step_cost(self, tops: tuple[int, ...], pile: int, card: int, played: tuple[int, ...]) -> tuple[float, float]:
        """(waste, waste plus the price of ignoring partners' signals) of one play."""
        gap = self.waste(tops, pile, card, played)
        cost = gap - self.relief[self.options(tops, card)]
        if gap > 0:
            keep_off, jump = self.partner_flags[pile]
            if keep_off and gap > self.tuning.keep_off_tolerance:
                cost += self.tuning.keep_off_penalty
            if jump:
                cost += self.tuning.jump_penalty
        return gap, cost

    def options(self, tops: tuple[int, ...], card: int) -> int:
        """How many piles `card` fits without the backwards trick."""
        count = 0
        for pile, top in enumerate(tops):
            if (card > top) if self.up[pile] else (card < top):
                count += 1
        return count

    def _relief_potential(self, tops: tuple[int, ...], hand: tuple[int, ...]) -> float:
        """An estimate from above of the risk the remaining hand can still shed by being played."""
        total = 0.0
        for card in hand:
            options = self.options(tops, card)
            if options or card + 10 in hand or card - 10 in hand:
                total += self.relief[options]
        return total

    def _in_force(self, tops: tuple[int, ...], command: str) -> bool:
        return any(self.commands.get(top) == command for top in tops)

    def outlook(self, tops: tuple[int, ...], hand: tuple[int, ...], played: tuple[int, ...]) -> float:
        """What the cheapest next turn made of the cards kept would waste (new draws can only help)."""
        need = self.min_plays
        if not hand or need < 1:
            return 0.0
        cheapest = []
        for card in hand:
            best = None
            for pile, top in enumerate(tops):
                if (card > top) if self.up[pile] else (card < top):
                    cost = self.waste(tops, pile, card, played)
                    if best is None or cost < best:
                        best = cost
            if best is not None:
                cheapest.append(best)
        cheapest.sort()
        return sum(cheapest[:need]) + self.badness[0] * max(0, need - len(cheapest))

    def crowding(self, tops: tuple[int, ...], played: tuple[int, ...]) -> float:
        """Pairs of in-play cards that depend on one and the same pile: they must go on it in order,
        so each pair is a chance that one is forced past the other."""
        total = 0.0
        for pile, top in enumerate(tops):
            if self.up[pile]:
                low = max([top] + [t for other, t in enumerate(tops) if not self.up[other]])
                high = min([101] + [t for other, t in enumerate(tops) if other != pile and self.up[other]])
            else:
                low = max([0] + [t for other, t in enumerate(tops) if other != pile and not self.up[other]])
                high = min([top] + [t for other, t in enumerate(tops) if self.up[other]])
            if high - low >= 2:
                count = self.prefix[high] - self.prefix[low + 1] - sum(1 for card in played if low < card < high)
                total += count * (count - 1) / 2
        return total

    def reach_risk(self, tops: tuple[int, ...], played: tuple[int, ...]) -> float:
        """How likely the cards still in play are to be stranded, judged by how close the piles they fit are.

        A pile reaches a card well when few in-play cards lie between its top and the card; a card's reach
        is the sum over the piles it fits, and its risk falls exponentially as its reach grows.
        """
        t = self.tuning
        left = [card for card in self.in_play if card not in played]
        reach = dict.fromkeys(left, 0.0)
        for pile, top in enumerate(tops):
            ahead = (
                [card for card in left if card > top]
                if self.up[pile]
                else [card for card in reversed(left) if card < top]
            )
            for queue, card in enumerate(ahead):
                reach[card] += t.reach_scale / (t.reach_scale + queue)
        return sum(math.exp(-t.reach_steepness * value) for value in reach.values())

    def leaf_cost(self, tops: tuple[int, ...], hand: tuple[int, ...], plays: int, played: tuple[int, ...]) -> float:
        """What the position left after the turn costs beyond the plays' waste."""
        t = self.tuning
        cost = t.outlook_weight * self.outlook(tops, hand, played) if t.outlook_weight else 0.0
        if t.crowding_weight:
            cost += t.crowding_weight * self.crowding(tops, played)
        if not self.commands:
            return cost
        if self.draw_pile > 0 and self._in_force(tops, DRAW_ONE):
            cost += t.draw_one_penalty * max(0, min(plays, self.draw_pile) - 1)
        if self._in_force(tops, ONE_PILE):
            cost += t.one_pile_penalty
        if self._in_force(tops, NO_TRICK):
            cost += t.no_trick_penalty
        if self.players > 1 and self._in_force(tops, SILENCE):
            cost += t.silence_penalty
        cost += t.stop_card_value * sum(1 for card in played if self.commands.get(card) == STOP)
        return cost

    # ---- search -----------------------------------------------------------------------------------

    def best_plays(self) -> list[tuple[int, int]]:
        """The chosen turn as (card, pile index) pairs; empty only when no legal turn exists."""
        self._best_total = float("inf")  # the cut-off: the worst of the candidates kept, once there are enough
        self._candidates: dict[tuple, tuple[float, list[tuple[int, int]], tuple[int, ...]]] = {}
        self._seen: dict[tuple, float] = {}
        self._nodes = 0
        self._deadline = time.perf_counter() + self.tuning.time_limit
        self._timed_out = False
        self._clock_countdown = 1
        self._dfs(self.tops, self.hand, (), [], 0.0, -1, 0, False, False)
        if not self._candidates:
            return []
        weight = self.tuning.reach_weight
        ranked = []
        for (tops, _), (total, plays, played) in self._candidates.items():
            if weight:
                total += weight * self.reach_risk(tops, played)
            ranked.append((total, plays))
        return min(ranked, key=lambda entry: entry[0])[1]

    def _keep_candidate(self, total: float, tops: tuple[int, ...], hand: tuple[int, ...], plays, played) -> None:
        key = (tops, hand)
        known = self._candidates.get(key)
        if known is not None and known[0] <= total:
            return
        self._candidates[key] = (total, list(plays), played)
        keep = self.tuning.candidates if self.tuning.reach_weight else 1
        if len(self._candidates) >= keep:
            ordered = sorted(self._candidates.items(), key=lambda item: item[1][0])
            self._candidates = dict(ordered[:keep])
            self._best_total = ordered[keep - 1][1][0]

    def _trick_potential(self, tops: tuple[int, ...], hand: tuple[int, ...], played: tuple[int, ...]) -> float:
        """An estimate from above of what backwards tricks can still earn back this turn.

        The plays on a pile cost about what moving it straight from its top to its final card costs, so
        only a pile that ends behind its top earns anything, and it can only end on a card whose trick
        partner (10 further on) is the top or can become it.
        """
        potential = 0.0
        for pile, top in enumerate(tops):
            if self.up[pile]:
                reachable = {top, *(card for card in hand if card > top)}
                furthest = None
                for card in reversed(hand):
                    if card < top and card + 10 in reachable:
                        reachable.add(card)
                        furthest = card
            else:
                reachable = {top, *(card for card in hand if card < top)}
                furthest = None
                for card in hand:
                    if card > top and card - 10 in reachable:
                        reachable.add(card)
                        furthest = card
            if furthest is not None:
                potential -= self.waste(tops, pile, furthest, played)
        return potential

    def _dfs(
        self,
        tops: tuple[int, ...],
        hand: tuple[int, ...],
        played: tuple[int, ...],
        plays: list[tuple[int, int]],
        cost: float,
        first_pile: int,
        skulls: int,  # bit set of the piles whose skull, played this turn, is not covered yet
        three: bool,
        stopped: bool,
    ) -> None:
        self._nodes += 1
        count = len(plays)
        key = (hand, tops, first_pile if self.commands else 0, skulls, three, stopped)
        seen = self._seen.get(key)
        if seen is not None and seen <= cost:
            return
        self._seen[key] = cost

        if not skulls and (not three or count == 3) and (count >= self.min_plays or stopped) and count:
            total = cost - self.bonus * max(0, count - self.min_plays) + self.leaf_cost(tops, hand, count, played)
            if total < self._best_total:
                self._keep_candidate(total, tops, hand, plays, played)
        if stopped or (three and count >= 3) or not hand:
            return
        forced = count < self.min_plays or bool(skulls) or three
        if skulls and self._skull_stranded(tops, hand, skulls):
            return
        if self._candidates and (self._nodes > self.tuning.node_limit or self._out_of_time()):
            return
        most_extras = max(0, count + len(hand) - self.min_plays)  # extras made so far and still possible
        floor = (
            cost
            - self._trick_potential(tops, hand, played)
            - self._relief_potential(tops, hand)
            - self.bonus * most_extras
        )
        if floor >= self._best_total:
            return

        no_trick = self._in_force(tops, NO_TRICK) if self.commands else False
        one_pile = count > 0 and self.commands and self._in_force(tops, ONE_PILE)
        children = []
        previous = None
        for index, card in enumerate(hand):
            if card == previous:
                continue
            previous = card
            command = self.commands.get(card)
            if command == THREE and count >= 3:
                continue
            becomes_three = three or command == THREE
            if command == STOP and becomes_three and count + 1 != 3:
                continue
            rest = hand[:index] + hand[index + 1 :]
            for pile, top in enumerate(tops):
                if one_pile and pile != first_pile:
                    continue
                if not self.fits(pile, top, card, no_trick):
                    continue
                gap, step = self.step_cost(tops, pile, card, played)
                if not forced and gap > 0 and step >= self.bonus and not self._opens_trick(pile, card, rest):
                    continue
                children.append((step, card, pile, rest, command, becomes_three))
        children.sort(key=lambda child: child[0])
        for step, card, pile, rest, command, becomes_three in children:
            new_tops = tops[:pile] + (card,) + tops[pile + 1 :]
            new_skulls = (skulls & ~(1 << pile)) | ((1 << pile) if command == SKULL else 0)
            plays.append((card, pile))
            self._dfs(
                new_tops,
                rest,
                played + (card,),
                plays,
                cost + step,
                pile if first_pile < 0 else first_pile,
                new_skulls,
                becomes_three,
                command == STOP,
            )
            plays.pop()

    def _out_of_time(self) -> bool:
        """Whether the turn's time is up; the clock is read every 64 calls, as a reading costs about a node."""
        if not self._timed_out:
            self._clock_countdown -= 1
            if self._clock_countdown <= 0:
                self._clock_countdown = 64
                self._timed_out = time.perf_counter() > self._deadline
        return self._timed_out

    def _skull_stranded(self, tops: tuple[int, ...], hand: tuple[int, ...], skulls: int) -> bool:
        """Whether some uncovered skull has no card left in hand that could ever cover it."""
        for pile, top in enumerate(tops):
            if skulls >> pile & 1 and not any(self.fits(pile, top, card, False) for card in hand):
                return True
        return False

    def _opens_trick(self, pile: int, card: int, rest: tuple[int, ...]) -> bool:
        """A costly play is still worth exploring when the hand holds the trick card for it."""
        return (card - 10 if self.up[pile] else card + 10) in rest

    # ---- signals ----------------------------------------------------------------------------------

    def signals_after(self, plays: list[tuple[int, int]]) -> dict[str, str] | None:
        """Signals for every pile after this turn, or None when they cannot or need not be sent."""
        if self.players == 1 or not plays:
            return None
        tops = list(self.tops)
        for card, pile in plays:
            tops[pile] = card
        final = tuple(tops)
        if self._in_force(final, SILENCE):
            return None
        played = tuple(card for card, _ in plays)
        rest = [card for card in self.hand if card not in played]
        no_trick = self._in_force(final, NO_TRICK)
        signals = {}
        for pile, top in enumerate(final):
            value = NO_SIGNAL
            if (top - 10 if self.up[pile] else top + 10) in rest:
                value = JUMP
            elif any(
                self.fits(pile, top, card, no_trick)
                and self.waste(final, pile, card, played) <= self.tuning.keep_off_signal
                for card in rest
            ):
                value = KEEP_OFF
            signals[self.names[pile]] = value
        return signals
