"""The match runner: N games between the same bots, each ending with a recorded reason.

One Player (process or module) per bot per match, reused across games and restarted after a failure;
after `max_failures` failures a bot forfeits the rest of its games. Time control: a per-turn limit plus a
per-game overage bank; a turn may take up to `turn + bank` seconds and whatever it takes beyond `turn`
is drawn from the bank.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

import games
from bots.house import is_house_ref, load_house_bot, parse_ref
from bots.house.versions import house_version
from bots.players import BotFailure, InProcessPlayer, Player
from bots.reply_bounds import storable_text, turn_problem
from bots.turn_output import TurnOutputs, with_failure_detail
from games import FACE_TO_FACE, IllegalTurn, Outcome, Termination
from games.shuffle import derived_seed

if TYPE_CHECKING:  # the sandbox package is imported only when a match has a file bot to sandbox
    from bots.sandbox.limits import SandboxLimits
    from bots.sandbox.unpack import UnpackLimits

STDERR_CAP = 64 * 1024


@dataclass(frozen=True)
class TimeControl:
    turn: float = 1.0
    bank: float = 10.0
    startup: float = 5.0

    def to_json(self) -> dict[str, float]:
        return {"turn": self.turn, "bank": self.bank, "startup": self.startup}


@dataclass(frozen=True)
class BotSpec:
    """A bot for a match: `house:NAME` or a path to a .py/.zip bot, with the name and version to log."""

    ref: str
    name: str | None = None
    version: str | None = None

    @property
    def is_house(self) -> bool:
        return is_house_ref(self.ref)

    @property
    def label(self) -> str:
        return self.name or self.ref

    def resolved_version(self) -> str:
        """The version to log: the given one, else the hash of the house bot's modules or of the bot file."""
        if self.version is not None:
            return self.version
        if self.is_house:
            return house_version(parse_ref(self.ref))
        return "sha256:" + hashlib.sha256(Path(self.ref).read_bytes()).hexdigest()


@dataclass(frozen=True)
class StartPosition:
    """Games that start where a logged game stood before its turn `turn`: the same deal, the same hands, the same
    order of what is left of the draw piles, the turns before it as logged (python -m bots play --from LOG --turn N).
    Each seat of the log is played by the match's bot of the same index; the seats never swap."""

    log: dict[str, Any]
    turn: int

    def state(self) -> games.GameState:
        """The position, replayed from the log (which is checked whole first)."""
        state = games.position_before(self.log, self.turn)
        state.log.dealt_from_seed = bool(self.log.get("dealt_from_seed"))
        return state

    def check(self) -> None:
        """Raise ValueError unless the log replays and the game still runs before turn `turn`."""
        try:
            state = self.state()
        except games.LogMismatch as error:
            raise ValueError(f"the log does not replay: {error}") from error
        if state.outcome is not None:
            raise ValueError(f"the game is over before turn {self.turn} ({state.outcome}); choose an earlier turn")


@dataclass
class MatchSpec:
    game: str
    bots: list[BotSpec]
    games: int = 1
    seed: int | str = 0
    players: int | None = None
    duplicate: bool = False
    duplicate_block: int = 0  # duplicate: deals played from one side, then from the other; 0: all the match's deals
    time_control: TimeControl = field(default_factory=TimeControl)
    sandbox: bool = True
    max_failures: int = 3
    options: dict[str, Any] = field(default_factory=dict)
    unpack_limits: UnpackLimits | None = None  # what an uploaded bot may be; None: the unpacker's defaults
    sandbox_limits: SandboxLimits | None = None  # what a sandboxed bot may use; None: SandboxLimits()
    reuse_sandboxes: bool = False  # a sandbox ends with its harness and is kept for the next match (sandbox/pool.py)
    first_deal: int = 0  # game i plays deal first_deal + its deal number: a chunk of a longer list of deals
    start: StartPosition | None = None  # every game starts from this position of a logged game

    def seat_count(self) -> int:
        if self.game == FACE_TO_FACE:
            return 2
        return self.players if self.players is not None else len(self.bots)

    def validate(self) -> None:
        if self.game not in games.GAME_IDS:
            raise ValueError(f"unknown game {self.game!r}; games are {', '.join(games.GAME_IDS)}")
        if self.games < 1:
            raise ValueError("a match needs at least one game")
        if self.first_deal < 0:
            raise ValueError(f"the first deal is a number from 0, got {self.first_deal}")
        if self.duplicate_block < 0:
            raise ValueError(
                f"a duplicate block is a number of deals from 1 (0: the whole match), got {self.duplicate_block}"
            )
        seats = self.seat_count()
        if self.game == FACE_TO_FACE and len(self.bots) != 2:
            raise ValueError(f"face-to-face needs exactly 2 bots, got {len(self.bots)}")
        if self.game != FACE_TO_FACE and len(self.bots) != seats:
            raise ValueError(f"{self.game} with {seats} player(s) needs {seats} bot(s), got {len(self.bots)}")
        if self.start is not None:
            self._validate_start(seats)

    def _validate_start(self, seats: int) -> None:
        log = self.start.log
        if log.get("game") != self.game:
            raise ValueError(f"the log is a game of {log.get('game')!r}, not of {self.game!r}")
        logged_seats = (log.get("options") or {}).get("players")
        if logged_seats != seats:
            raise ValueError(f"the log's game has {logged_seats} seat(s), this match {seats}")
        if self.duplicate:
            raise ValueError("games from a logged position keep its seats: --duplicate does not apply")
        if self.options:
            raise ValueError("games from a logged position keep its options")
        self.start.check()


@dataclass
class GameResult:
    """One game of a match. The log is kept as its compact JSON text (what the league stores and --log-dir writes):
    thousands of logs held as nested lists would cost the garbage collector more than playing the games."""

    index: int
    deal: int
    log_json: str
    outcome: Outcome
    seat_bots: list[int]
    turns: int
    stderr: dict[int, str] = field(default_factory=dict)
    # private, like stderr: what the captured bots wrote during each turn (bots/turn_output.py)
    turn_output: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_log(
        cls,
        index: int,
        deal: int,
        log: dict[str, Any],
        outcome: Outcome,
        seat_bots: list[int],
        stderr: dict[int, str] | None = None,
    ) -> GameResult:
        """A result for a game whose log is at hand as a dict."""
        return cls(index, deal, games.dumps_log(log), outcome, seat_bots, len(log["turns"]), stderr or {})

    @cached_property
    def log(self) -> dict[str, Any]:
        """The game log as a dict (parsed from `log_json` on first use)."""
        return orjson.loads(self.log_json)

    def winner_bot(self) -> int | None:
        return None if self.outcome.winner is None else self.seat_bots[self.outcome.winner]


@dataclass
class MatchResult:
    spec: MatchSpec
    games: list[GameResult]
    stderr: dict[int, str]
    elapsed: float


def seating(spec: MatchSpec, index: int) -> tuple[int, list[int]]:
    """(deal number, bot index per seat) for game `index`: seats alternate, and with duplicate deals each deal is
    played twice with the seats reversed: a block of deals from one side, then the same deals from the other, the
    bots started afresh in between (`mirror_starts`), so that no bot plays a deal remembering its other side."""
    seats = spec.seat_count()
    if spec.start is not None:
        return index + spec.first_deal, list(range(seats))
    if spec.duplicate:
        deal, swapped = _duplicate_deal(spec, index)
    else:
        deal, swapped = index, index % 2
    deal += spec.first_deal
    order = list(range(seats))
    if spec.game == FACE_TO_FACE and swapped:
        order.reverse()
    elif spec.game != FACE_TO_FACE and spec.duplicate and swapped:
        order.reverse()
    return deal, order


def _duplicate_blocks(spec: MatchSpec) -> Generator[tuple[int, int], None, None]:
    """(first deal, deals) of each block of a duplicate match: its games 2 * first .. 2 * (first + deals) - 1."""
    pairs = spec.games // 2
    block = spec.duplicate_block or max(pairs, 1)
    for first in range(0, pairs, block):
        yield first, min(block, pairs - first)


def _duplicate_deal(spec: MatchSpec, index: int) -> tuple[int, bool]:
    """(deal, swapped) of game `index` of a duplicate match: every block but the last is full, so its block is
    index // (2 * block), with no walk over the blocks before it (a test may play thousands)."""
    pairs = spec.games // 2
    if index >= 2 * pairs:
        return pairs, False  # an odd match's last deal, played once
    block = spec.duplicate_block or pairs
    first = index // (2 * block) * block
    deals = min(block, pairs - first)
    within = index - 2 * first
    return (first + within, False) if within < deals else (first + within - deals, True)


def mirror_starts(spec: MatchSpec) -> frozenset[int]:
    """The indexes of the games that begin replaying a block of deals from the other seats."""
    if not spec.duplicate or spec.start is not None:
        return frozenset()
    return frozenset(2 * first + deals for first, deals in _duplicate_blocks(spec))


def make_player(bot: BotSpec, spec: MatchSpec) -> Player:
    if bot.is_house:
        return InProcessPlayer(load_house_bot(parse_ref(bot.ref)), bot.label, bot.resolved_version())
    path = Path(bot.ref)
    if not path.exists():
        raise FileNotFoundError(f"bot file {bot.ref} does not exist")
    if spec.sandbox:
        from bots.sandbox import SandboxedPlayer

        return SandboxedPlayer(
            path,
            name=bot.label,
            version=bot.resolved_version(),
            limits=spec.sandbox_limits,
            unpack_limits=spec.unpack_limits,
            reuse=spec.reuse_sandboxes,
        )
    from bots.unsafe import load_unsandboxed

    return InProcessPlayer(load_unsandboxed(path), bot.label, bot.resolved_version(), capture_output=True)


class _Seat:
    """A bot's player for the whole match, with its failure count."""

    def __init__(self, bot: BotSpec, spec: MatchSpec) -> None:
        self.bot = bot
        self.spec = spec
        self.player: Player | None = None
        self.failures = 0
        self.last_failure: BotFailure | None = None
        self.launched = False  # the player exists but start() has not returned yet
        self.trusted = bot.is_house  # a house bot's turns need no bounds check (it costs ~10 us a turn)
        self.game_output = ""  # what the bot wrote so far this game (the end of it)

    @property
    def retired(self) -> bool:
        return self.failures >= self.spec.max_failures

    def launch(self) -> None:
        """Let the bot begin loading, if it is not running (ensure_started then waits for it)."""
        if self.player is None and not self.retired:
            self.player = make_player(self.bot, self.spec)
            self.player.launch(self.spec.time_control.startup)
            self.launched = True

    def boot(self) -> None:
        """Carry a launch on as far as it goes without waiting for the bot (see Player.boot)."""
        if self.launched:
            self.player.boot()

    def ensure_started(self) -> Player:
        if self.player is None:
            self.player = make_player(self.bot, self.spec)
            self.launched = True
        if self.launched:
            self.launched = False
            try:
                self.player.start(self.spec.time_control.startup)
            except BotFailure:
                self._discard()
                raise
        return self.player

    def failed(self, failure: BotFailure) -> None:
        self.failures += 1
        self.last_failure = failure
        self._discard()

    def take_output(self) -> str:
        """What the bot wrote since the last take; it is also kept for the game's stderr tail (`game_stderr`)."""
        text = self.player.take_stderr() if self.player is not None else ""
        if text:
            self.game_output = (self.game_output + text)[-STDERR_CAP:]
        return text

    def game_stderr(self) -> str:
        """Everything the bot wrote this game (the end of it), with its last failure's detail for the owner."""
        self.take_output()
        text, self.game_output = self.game_output, ""
        if self.last_failure is not None and self.last_failure.stderr_tail:
            text = with_failure_detail(text, self.last_failure.stderr_tail)  # a sandbox's detail repeats its log's end
            self.last_failure.stderr_tail = ""  # shown once; its termination labels later forfeits
        return text

    def forget(self) -> None:
        """Have the bot start over at its next game, with nothing it kept: in its sandbox where it runs in one (a new
        harness, a new /tmp), else as a new player."""
        forget = getattr(self.player, "forget", None)
        if forget is not None and forget():
            self.launched = True  # its next start finishes the new harness's boot
        else:
            self._discard()

    def _discard(self) -> None:
        self.launched = False
        if self.player is not None:
            self.player.close()
            self.player = None

    def begin_close(self) -> None:
        if self.player is not None:
            self.player.begin_close()

    def close(self) -> None:
        self._discard()


def run_match(spec: MatchSpec, on_game: Callable[[GameResult], None] | None = None) -> MatchResult:
    """Play the whole match; call `on_game` after each game."""
    started = time.perf_counter()
    results: list[GameResult] = []
    stderr: dict[int, str] = {}
    with closing(play_games(spec)) as games_played:
        for result in games_played:
            for bot_index, text in result.stderr.items():
                stderr[bot_index] = (stderr.get(bot_index, "") + text)[-STDERR_CAP:]
            results.append(result)
            if on_game is not None:
                on_game(result)
    return MatchResult(spec, results, stderr, time.perf_counter() - started)


def play_games(spec: MatchSpec) -> Generator[GameResult, None, None]:
    """The match's games, each played when asked for: whoever stops early closes the generator (or lets it go),
    and that closes the bots. The spec is checked at once, not at the first game."""
    spec.validate()
    return _games(spec)


def _games(spec: MatchSpec) -> Generator[GameResult, None, None]:
    bots = [replace(bot, version=bot.resolved_version()) for bot in spec.bots]  # hashed once per match
    seats = [_Seat(bot, spec) for bot in bots]
    identities = [(bot.label, bot.version) for bot in bots]
    mirrors = mirror_starts(spec)
    try:
        for index in range(spec.games):
            if index in mirrors:
                _forget(seats)
            yield _play_game(spec, seats, identities, index)
    finally:
        for seat in seats:  # every bot signalled before the first is waited for: their ends overlap
            seat.begin_close()
        for seat in seats:
            seat.close()


def _forget(seats: list[_Seat]) -> None:
    """Start every bot that is not ours afresh: in a duplicate match it would otherwise play each deal's second side
    knowing the first (its opponent's hand, both draw piles), since module globals and the sandbox's /tmp last as long
    as its process. House bots are ours, and run on in the worker's process."""
    for seat in seats:
        if not seat.trusted:
            seat.forget()


def _play_game(spec: MatchSpec, seats: list[_Seat], identities: list[tuple[str, str | None]], index: int) -> GameResult:
    deal, seat_bots = seating(spec, index)
    if spec.start is not None:
        state = spec.start.state()
    else:
        start_seat = 0 if spec.game == "face-to-face" else None  # Face to Face alternates by seating; co-op by lot
        seed = f"{spec.seed}:{deal}"
        state = games.new_game(spec.game, spec.seat_count(), seed, start_seat=start_seat, **spec.options)
    state.log.set_bots([identities[b] for b in seat_bots])
    tc = spec.time_control
    banks = [tc.bank] * len(seat_bots)
    _start_game(spec, state, seats, seat_bots, deal)
    outputs = TurnOutputs()
    for seat, bot_index in enumerate(seat_bots):
        if not seats[bot_index].trusted:
            outputs.add(0, seat, seats[bot_index].bot.label, None, seats[bot_index].take_output())
    while state.outcome is None:
        seat = state.to_move
        owner = seats[seat_bots[seat]]
        if owner.player is None:  # retired, or failed to start or to begin this game
            _forfeit_unavailable(state, seat, owner)
            break
        started = time.perf_counter()
        try:
            raw, elapsed = owner.player.play(state.observation(seat), tc.turn + banks[seat])
            problem = None if owner.trusted else turn_problem(raw)
            if problem is not None:
                raise BotFailure(Termination.PROTOCOL_ERROR, f"its turn {problem}")
        except BotFailure as failure:
            if not owner.trusted:
                text = with_failure_detail(owner.take_output(), failure.stderr_tail)
                ms = (time.perf_counter() - started) * 1000
                outputs.add(state.turn_number + 1, seat, owner.bot.label, ms, text)
            owner.failed(failure)
            # never its stderr: the log is public, stderr is for the bot's owner only
            detail = storable_text(failure.detail)
            if failure.termination == Termination.TIMEOUT:
                detail += f"; the limit was {tc.turn:.2f} s per turn plus {banks[seat]:.2f} s left in its bank"
            state.forfeit(seat, failure.termination, detail)
            break
        banks[seat] -= max(0.0, elapsed - tc.turn)
        if not owner.trusted:
            outputs.add(state.turn_number + 1, seat, owner.bot.label, elapsed * 1000, owner.take_output())
        try:
            state.push(raw, elapsed * 1000)  # the raw JSON form, so plain Face to Face turns take the fast path
        except IllegalTurn as error:
            state.reject(raw, error, elapsed * 1000)
    game_stderr = {}
    for bot_index in sorted(set(seat_bots)):
        text = seats[bot_index].game_stderr()
        if text:
            game_stderr[bot_index] = storable_text(text, STDERR_CAP, tail=True)
    log_json = games.dumps_log(state.log.to_json())
    return GameResult(
        index, deal, log_json, state.outcome, seat_bots, state.turn_number, game_stderr, outputs.to_json()
    )


def _start_game(spec: MatchSpec, state: games.GameState, seats: list[_Seat], seat_bots: list[int], deal: int) -> None:
    """Start (or restart) each seat's bot and tell it a game begins; a failure forfeits that seat."""
    for bot_index in seat_bots:  # all at once: a sandbox boots while the others do
        seats[bot_index].launch()
    for bot_index in seat_bots:
        seats[bot_index].boot()
    for seat, bot_index in enumerate(seat_bots):
        owner = seats[bot_index]
        if owner.retired:
            continue
        info = {
            "game": spec.game,
            "players": spec.seat_count(),
            "seat": seat,
            "seed": derived_seed(state.log.seed, f"bot-seed:{seat}"),  # never the game's: that would tell the deal
            "options": dict(spec.options),
        }
        try:
            owner.ensure_started().new_game(info, spec.time_control.startup)
        except BotFailure as failure:
            owner.failed(failure)
            if state.outcome is None:
                state.forfeit(seat, failure.termination, storable_text(failure.detail))


def _forfeit_unavailable(state: games.GameState, seat: int, owner: _Seat) -> None:
    if owner.retired:
        detail = f"{owner.bot.label} failed {owner.failures} times in this match; its remaining games are forfeits"
        termination = owner.last_failure.termination if owner.last_failure else Termination.CRASH
    else:
        detail = f"{owner.bot.label} is not running"
        termination = Termination.CRASH
    state.forfeit(seat, termination, detail)
