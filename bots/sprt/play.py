"""Playing a version test with the match runner, a batch of samples at a time.

Sample k (from 0) is deal k of the test's seed (dealt from "SEED:k", the runner's own rule):
- Face to Face: a duplicate pair, games 2k and 2k+1 of one duplicate match, NEW in seat 0 and then in seat 1;
- co-op games: deal k played by a team of NEW and by a team of BASE (`players` seats each, one bot per seat).
Every file bot runs in the sandbox unless the contest says otherwise, as in `python -m bots play`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice

from bots.match import BotSpec, GameResult, MatchSpec, TimeControl, play_games
from bots.sprt.counts import PENTANOMIAL, TRINOMIAL, Counts, deal_class, pair_class
from bots.sprt.gsprt import SPRT
from bots.sprt.status import Status
from games import FACE_TO_FACE

NEW, BASE = 0, 1


@dataclass(frozen=True)
class Contest:
    """Who plays whom, on which deals, under which rules."""

    game: str
    new: BotSpec
    base: BotSpec
    seed: str
    players: int = 1  # co-op team size; Face to Face always has 2 seats
    time_control: TimeControl = field(default_factory=TimeControl)
    sandbox: bool = True

    @property
    def kind(self) -> str:
        return PENTANOMIAL if self.game == FACE_TO_FACE else TRINOMIAL

    def specs(self, first: int, samples: int) -> list[MatchSpec]:
        """The matches that play samples first .. first + samples - 1: one duplicate match (Face to Face), or
        NEW's team and then BASE's team on the same deals (co-op)."""
        common = {"seed": self.seed, "first_deal": first, "time_control": self.time_control, "sandbox": self.sandbox}
        if self.game == FACE_TO_FACE:
            return [MatchSpec(self.game, [self.new, self.base], games=2 * samples, duplicate=True, **common)]
        return [
            MatchSpec(self.game, [bot] * self.players, games=samples, players=self.players, **common)
            for bot in (self.new, self.base)
        ]

    def counts(self, played: Sequence[Sequence[GameResult]]) -> Counts:
        """The counts of the games of `specs(...)`, one list of results per match."""
        if self.game == FACE_TO_FACE:
            return face_to_face_counts(played[0])
        return coop_counts(played[NEW], played[BASE])


def game_score(result: GameResult, bot: int) -> float:
    """1 if `bot` won the Face to Face game, 0 if it lost, 1/2 for a game without a winner."""
    winner = result.winner_bot()
    return 0.5 if winner is None else float(winner == bot)


def face_to_face_counts(results: Sequence[GameResult]) -> Counts:
    """Pentanomial counts of a duplicate match's games, NEW being bot 0."""
    by_deal: dict[int, list[GameResult]] = {}
    for result in results:
        by_deal.setdefault(result.deal, []).append(result)
    counts = Counts.zeros(PENTANOMIAL)
    for deal, pair in sorted(by_deal.items()):
        if len(pair) != 2:
            raise ValueError(f"deal {deal} was played {len(pair)} time(s) in a duplicate match, not twice")
        first, second = pair
        counts = counts.add(pair_class(game_score(first, NEW), game_score(second, NEW)))
    return counts


def coop_counts(new_results: Sequence[GameResult], base_results: Sequence[GameResult]) -> Counts:
    """Trinomial counts of NEW's and BASE's games on the same deals (fewer cards left wins)."""
    counts = Counts.zeros(TRINOMIAL)
    for new, base in zip(new_results, base_results, strict=True):
        if new.deal != base.deal:
            raise ValueError(f"NEW played deal {new.deal} where BASE played deal {base.deal}")
        counts = counts.add(deal_class(new.outcome.score, base.outcome.score))
    return counts


def run_test(
    contest: Contest,
    test: SPRT,
    max_games: int,
    batch: int,
    on_batch: Callable[[Status], None] | None = None,
) -> Status:
    """Play `batch` samples at a time until the test accepts a hypothesis or `max_games` games are played.

    One match per side stays open for the whole test, so a sandboxed bot starts once, not once a batch."""
    if batch < 1:
        raise ValueError(f"a batch is at least one pair, got {batch}")
    most = max_games // 2
    if most < 1:
        raise ValueError(f"a test plays games in twos, so the cap must be at least 2 games, got {max_games}")
    # a duplicate match's deals from one side, then the other, a batch at a time: each batch ends with whole pairs
    specs = [replace(spec, duplicate_block=batch) if spec.duplicate else spec for spec in contest.specs(0, most)]
    games_per_sample = [spec.games // most for spec in specs]
    streams: list[Generator[GameResult, None, None]] = [play_games(spec) for spec in specs]
    status = Status.of(test, Counts.zeros(contest.kind))
    try:
        while status.verdict is None and status.counts.pairs < most:
            size = min(batch, most - status.counts.pairs)
            played = [list(islice(stream, size * per)) for stream, per in zip(streams, games_per_sample, strict=True)]
            status = Status.of(test, status.counts + contest.counts(played))
            if on_batch is not None:
                on_batch(status)
    finally:
        for stream in streams:
            stream.close()
    return status
