"""An independent model of RULES.md, used to check the engine from the outside.

Nothing here imports `games`: the model deals from the decks a log records, decides which plays and
turns are legal, applies draws and end conditions, and plays random legal turns. The property tests
run it side by side with the engine and demand that both agree at every step.

Where RULES.md leaves a case open, the model flags a turn as *ambiguous* instead of guessing; the
random policy never plays such turns, and the stuck test is only compared when it does not hinge on one.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

FACE_TO_FACE, THE_GAME, EXTREME = "face-to-face", "the-game", "extreme"
F2F_PILES = ("p0.up", "p0.down", "p1.up", "p1.down")
COOP_PILES = ("up1", "up2", "down1", "down2")
F2F_CARDS = range(2, 60)
COOP_CARDS = range(2, 100)
F2F_HAND_SIZE = 6
COOP_HAND_SIZES = {1: 8, 2: 7, 3: 6, 4: 6, 5: 6}
INFINITY = frozenset({"silence", "no-trick", "one-pile", "draw-one"})
# RULES.md section 3, copied from the rules (not from the engine).
DEFAULT_COMMANDS = {
    "stop": (4, 28, 53, 77),
    "skull": (7, 32, 56, 81),
    "three": (11, 35, 60, 84),
    "silence": (14, 39, 63, 88),
    "no-trick": (18, 42, 67, 91),
    "one-pile": (21, 46, 70, 95),
    "draw-one": (25, 49, 74, 98),
}
DEFAULT_TABLE = {card: command for command, cards in DEFAULT_COMMANDS.items() for card in cards}
SIGNALS = ("none", "keep-off", "jump")

Play = tuple[int, str]


def pile_ids(game: str) -> tuple[str, ...]:
    return F2F_PILES if game == FACE_TO_FACE else COOP_PILES


def direction(pile: str) -> str:
    return "up" if "up" in pile else "down"


def owner(pile: str) -> int | None:
    return int(pile[1]) if pile.startswith("p") else None


def start_card(game: str, pile: str) -> int:
    if direction(pile) == "up":
        return 1
    return 60 if game == FACE_TO_FACE else 100


class Broken(Exception):
    """A play or turn the rules forbid. `command` is True when an Extreme command is what forbids it."""

    def __init__(self, what: str, *, command: bool = False, play_index: int | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.command = command
        self.play_index = play_index


@dataclass(frozen=True)
class Rules:
    game: str
    players: int
    hand_size: int
    table: Mapping[int, str]

    @property
    def coop(self) -> bool:
        return self.game != FACE_TO_FACE


@dataclass(frozen=True)
class Partial:
    """A turn laid up to some play: what the mover still holds and what the piles show."""

    mover: int
    min_plays: int
    hand: frozenset[int]
    tops: tuple[tuple[str, int], ...]
    played: tuple[int, ...] = ()
    first_pile: str | None = None
    opponent_plays: int = 0
    skulls: frozenset[str] = frozenset()
    three: bool = False
    stopped: bool = False
    ambiguous: bool = False

    @property
    def count(self) -> int:
        return len(self.played)


def infinity_in_force(tops: Sequence[tuple[str, int]], table: Mapping[int, str]) -> dict[str, str]:
    return {pile: table[top] for pile, top in tops if table.get(top) in INFINITY}


def fits(mover: int, pile: str, top: int, card: int) -> tuple[bool, bool]:
    """(legal by the pile rule, uses the backwards trick) for `card` on `pile` showing `top`."""
    up = direction(pile) == "up"
    if owner(pile) not in (None, mover):
        return (card < top if up else card > top), False
    if (card > top) if up else (card < top):
        return True, False
    trick = card == (top - 10 if up else top + 10)
    return trick, trick


def step(rules: Rules, part: Partial, card: int, pile: str) -> Partial:
    """The partial turn after one more play, or Broken naming the first rule it breaks. A play that breaks
    a command and a basic rule at once is a broken command (RULES.md section 3), so commands come first."""
    index = part.count + 1
    tops = dict(part.tops)
    command = rules.table.get(card)
    in_force = set(infinity_in_force(part.tops, rules.table).values()) if rules.table else set()
    if part.stopped:
        raise Broken("play after stop", command=True, play_index=index)
    if part.three and index > 3:
        raise Broken("three: more than 3 plays", command=True, play_index=index)
    if command == "three" and index > 3:
        raise Broken("three as play 4 or later", command=True, play_index=index)
    if command == "stop" and part.three and index != 3:
        raise Broken("stop not third under three", command=True, play_index=index)
    if "one-pile" in in_force and part.first_pile is not None and pile != part.first_pile:
        raise Broken("one-pile", command=True, play_index=index)
    if "no-trick" in in_force and pile in tops and fits(part.mover, pile, tops[pile], card)[1]:
        raise Broken("no-trick", command=True, play_index=index)
    if card not in part.hand:
        raise Broken("not in hand", play_index=index)
    if pile not in tops:
        raise Broken("unknown pile", play_index=index)
    ok, _ = fits(part.mover, pile, tops[pile], card)
    if not ok:
        raise Broken("pile order", play_index=index)
    opponent_plays = part.opponent_plays + (owner(pile) not in (None, part.mover))
    if opponent_plays > 1:
        raise Broken("two opponent plays", play_index=index)
    ambiguous = part.ambiguous
    # RULES.md does not say whether a one-pile card may itself go on another pile than the first play's,
    if command == "one-pile" and part.first_pile is not None and pile != part.first_pile:
        ambiguous = True
    # nor whether signals that a silence card cleared come back when it is covered in the same turn.
    if rules.table.get(tops[pile]) == "silence" and tops[pile] in part.played:
        ambiguous = True
    skulls = part.skulls - {pile}
    if command == "skull":
        skulls |= {pile}
    tops[pile] = card
    return Partial(
        mover=part.mover,
        min_plays=part.min_plays,
        hand=part.hand - {card},
        tops=tuple(tops.items()),
        played=(*part.played, card),
        first_pile=part.first_pile or pile,
        opponent_plays=opponent_plays,
        skulls=skulls,
        three=part.three or command == "three",
        stopped=command == "stop",
        ambiguous=ambiguous,
    )


def end_problem(part: Partial) -> Broken | None:
    """Why the turn may not end here, or None if it may."""
    if part.count == 0:
        return Broken("empty turn")
    if part.skulls:
        return Broken("skull uncovered", command=True)
    if part.three and part.count != 3:
        return Broken("three: not exactly 3 plays", command=True)
    if part.count < part.min_plays and not part.stopped:
        return Broken("too few plays")
    return None


def check_turn(rules: Rules, start: Partial, plays: Sequence[Play]) -> Partial:
    """The finished turn, or Broken for the first rule the whole turn breaks."""
    part = start
    for card, pile in plays:
        part = step(rules, part, card, pile)
    problem = end_problem(part)
    if problem is not None:
        raise problem
    return part


def next_steps(rules: Rules, part: Partial, allow_ambiguous: bool) -> Iterator[tuple[Play, Partial]]:
    """Every play the rules allow next, with the partial turn it leads to."""
    if part.stopped:
        return
    for card in sorted(part.hand):
        for pile, _ in part.tops:
            try:
                after = step(rules, part, card, pile)
            except Broken:
                continue
            if allow_ambiguous or not after.ambiguous:
                yield (card, pile), after


class Completions:
    """Memoised search: can this partial turn be continued (maybe by nothing) into a legal turn?"""

    def __init__(self, rules: Rules, allow_ambiguous: bool = False) -> None:
        self.rules = rules
        self.allow_ambiguous = allow_ambiguous
        self.memo: dict[Partial, bool] = {}

    def __call__(self, part: Partial) -> bool:
        if end_problem(part) is None:
            return True
        key = replace(part, played=tuple(sorted(part.played)))
        if key not in self.memo:
            self.memo[key] = end_problem(part) is None or any(
                self(after) for _, after in next_steps(self.rules, part, self.allow_ambiguous)
            )
        return self.memo[key]


class MirrorGame:
    """The model's own copy of a game, dealt from the same decks as the engine's."""

    def __init__(self, rules: Rules, decks: Sequence[Sequence[int]], start_seat: int) -> None:
        self.rules = rules
        piles = pile_ids(rules.game)
        if rules.coop:
            (deck,) = decks
            size = rules.hand_size
            self.hands = [list(deck[seat * size : (seat + 1) * size]) for seat in range(rules.players)]
            self.draws = [list(deck[rules.players * size :])]
        else:
            self.hands = [list(deck[:F2F_HAND_SIZE]) for deck in decks]
            self.draws = [list(deck[F2F_HAND_SIZE:]) for deck in decks]
        self.piles: dict[str, list[int]] = {pile: [start_card(rules.game, pile)] for pile in piles}
        self.placed_by: dict[str, list[int]] = {pile: [] for pile in piles}
        self.signals = [dict.fromkeys(piles, "none") for _ in range(rules.players)] if rules.coop else []
        self.to_move: int | None = start_seat
        # (termination, winner, score, seat); None while the game runs.
        self.result: tuple[str, int | None, int | None, int | None] | None = None
        # True once the stuck test hinged on a case RULES.md leaves open: stop comparing from there.
        self.uncertain = False
        self._end_if_stuck(start_seat, winner=None if rules.coop else 1 - start_seat)

    def draw_pile(self, seat: int) -> list[int]:
        return self.draws[0] if self.rules.coop else self.draws[seat]

    def min_plays(self, seat: int) -> int:
        if self.rules.coop:
            return 2 if self.draws[0] else 1
        return min(2, len(self.hands[seat]))

    def tops(self) -> tuple[tuple[str, int], ...]:
        return tuple((pile, history[-1]) for pile, history in self.piles.items())

    def in_force(self) -> dict[str, str]:
        return infinity_in_force(self.tops(), self.rules.table)

    def start(self, seat: int | None = None) -> Partial:
        seat = self.to_move if seat is None else seat
        assert seat is not None, "the game is over"
        return Partial(seat, self.min_plays(seat), frozenset(self.hands[seat]), self.tops())

    def can_move(self, seat: int, allow_ambiguous: bool = False) -> bool:
        return Completions(self.rules, allow_ambiguous)(self.start(seat))

    def signals_allowed(self, plays: Sequence[Play]) -> bool:
        """Signals are set unambiguously only when no silence card is in force or played this turn."""
        return (
            self.rules.coop
            and "silence" not in self.in_force().values()
            and not any(self.rules.table.get(card) == "silence" for card, _ in plays)
        )

    def apply(self, plays: Sequence[Play], signals: Mapping[str, str] | None = None) -> Partial:
        """Play a turn (Broken if illegal), draw, and decide who moves next or how the game ended."""
        mover = self.to_move
        assert mover is not None, "the game is over"
        done = check_turn(self.rules, self.start(), plays)
        hand = self.hands[mover]
        for card, pile in plays:
            hand.remove(card)
            self.piles[pile].append(card)
            self.placed_by[pile].append(mover)
        draw_pile = self.draw_pile(mover)
        if self.rules.coop:
            wanted = 1 if "draw-one" in self.in_force().values() else self.rules.hand_size - len(hand)
        else:
            wanted = F2F_HAND_SIZE - len(hand) if done.opponent_plays else 2
        count = max(0, min(wanted, len(draw_pile)))
        hand.extend(draw_pile[:count])
        del draw_pile[:count]
        if self.rules.coop:
            if "silence" in self.in_force().values():
                for seat_signals in self.signals:
                    seat_signals.update(dict.fromkeys(seat_signals, "none"))
            elif signals:
                self.signals[mover].update(signals)
            self._pass_coop(mover)
        else:
            self._pass_f2f(mover)
        return done

    def forfeit(self, seat: int, termination: str) -> None:
        """The game ends because the bot in `seat` failed or broke a rule."""
        if self.rules.coop:
            self._end(termination, score=self.cards_not_placed(), seat=seat)
        else:
            self._end(termination, winner=1 - seat, seat=seat)

    def cards_not_placed(self) -> int:
        return sum(len(hand) for hand in self.hands) + sum(len(pile) for pile in self.draws)

    def _pass_f2f(self, mover: int) -> None:
        if not self.hands[mover] and not self.draws[mover]:
            self._end("all-cards-played", winner=mover, seat=None)
            return
        self.to_move = 1 - mover
        self._end_if_stuck(1 - mover, winner=mover)

    def _pass_coop(self, mover: int) -> None:
        if not any(self.hands) and not self.draws[0]:
            self._end("all-cards-played", score=0, seat=None)
            return
        players = self.rules.players
        following = [(mover + offset) % players for offset in range(1, players + 1)]
        self.to_move = next(seat for seat in following if self.hands[seat])
        self._end_if_stuck(self.to_move, winner=None)

    def _end_if_stuck(self, seat: int, winner: int | None) -> None:
        strict, loose = self.can_move(seat), self.can_move(seat, allow_ambiguous=True)
        if strict != loose:
            self.uncertain = True
        if not loose:
            score = self.cards_not_placed() if self.rules.coop else None
            self._end("stuck", winner=winner, score=score, seat=seat)

    def _end(self, termination: str, *, winner: int | None = None, score: int | None = None, seat: int | None) -> None:
        self.result = (termination, winner, score, seat)
        self.to_move = None


@dataclass
class Policy:
    """A random player of legal turns. `care` is the chance of taking the closest-fitting play
    instead of a uniformly random one; once the turn may end, it plays on while the chosen play is
    at most `eager` away from its pile's top (the trick counts as -10), or else with chance `linger`."""

    rng: random.Random
    care: float = 0.5
    linger: float = 0.3
    eager: int = -11
    signal_rate: float = 0.3

    def turn(self, game: MirrorGame) -> tuple[list[Play], dict[str, str]]:
        complete = Completions(game.rules)
        part = game.start()
        plays: list[Play] = []
        while not part.stopped:
            options = list(next_steps(game.rules, part, False))
            if self.rng.random() < self.care:
                options.sort(key=lambda option, start=part: _distance(start, option[0]))
            else:
                self.rng.shuffle(options)
            chosen = next((option for option in options if complete(option[1])), None)
            if chosen is None:
                break
            if end_problem(part) is None:
                close = _distance(part, chosen[0]) <= self.eager
                if not close and self.rng.random() >= self.linger:
                    break
            plays.append(chosen[0])
            part = chosen[1]
        assert end_problem(part) is None, f"policy built an unfinished turn {plays}"
        signals: dict[str, str] = {}
        if game.signals_allowed(plays) and self.rng.random() < self.signal_rate:
            for pile in self.rng.sample(COOP_PILES, self.rng.randint(1, 4)):
                signals[pile] = self.rng.choice(SIGNALS)
        return plays, signals

    def mutate(self, game: MirrorGame, plays: Sequence[Play]) -> list[Play]:
        """A variant of a turn that is usually (not always) illegal: the model decides which."""
        plays = list(plays)
        piles = pile_ids(game.rules.game)
        cards = F2F_CARDS if game.rules.game == FACE_TO_FACE else COOP_CARDS
        hand = sorted(game.hands[game.to_move])
        kind = self.rng.randrange(5)
        if kind == 0 and plays:
            index = self.rng.randrange(len(plays))
            plays[index] = (self.rng.choice(cards), plays[index][1])
        elif kind == 1 and plays:
            index = self.rng.randrange(len(plays))
            plays[index] = (plays[index][0], self.rng.choice(piles))
        elif kind == 2:
            plays = plays[: self.rng.randrange(len(plays) + 1)]
        elif kind == 3:
            plays.append((self.rng.choice(hand), self.rng.choice(piles)))
        else:
            plays = [(self.rng.choice(hand), self.rng.choice(piles)) for _ in range(self.rng.randint(1, 4))]
        return plays


def _distance(part: Partial, play: Play) -> int:
    card, pile = play
    top = dict(part.tops)[pile]
    if owner(pile) not in (None, part.mover):
        return 200 + abs(card - top)  # helping the opponent is a last resort
    gap = card - top if direction(pile) == "up" else top - card
    return -10 if gap == -10 else gap
