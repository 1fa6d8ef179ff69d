"""Re-simulating a game log and checking every turn and the recorded result.

A log replays with no other input: the decks it records give every hand and draw, and its turns are
pushed through the engine again, as python-chess replays a PGN by pushing its moves.
"""

from __future__ import annotations

from typing import Any

from games.catalog import EXTREME, THE_GAME
from games.commands import COMMANDS
from games.errors import IllegalTurn, LogMismatch
from games.factory import GAME_IDS, new_game, seeded_decks, seeded_start_seat
from games.log import LOG_FORMAT, LOG_VERSION
from games.moves import Turn
from games.outcome import BOT_FAILURES, Outcome, Termination
from games.state import GameState

# Every member of a log, as the schema (games/schemas/game-log.schema.json) lists them: nothing else is accepted
LOG_KEYS = frozenset(
    {"format", "version", "game", "options", "seed", "dealt_from_seed", "seats", "start_seat", "decks", "turns",
     "rejected_turn", "result"}
)  # fmt: skip
OPTION_KEYS = frozenset({"players", "hand_size", "command_table"})
SEAT_KEYS = frozenset({"seat", "bot", "version"})
TURN_KEYS = frozenset({"seat", "plays", "signals", "ms"})
REJECTED_KEYS = frozenset({"seat", "turn", "rule", "ms"})
RESULT_KEYS = frozenset({"termination", "winner", "score", "seat", "detail"})


def replay(log: dict[str, Any]) -> Outcome:
    """Replay `log`; return its Outcome, or raise LogMismatch naming the first disagreement."""
    state = _initial_state(log)
    turns = _field(log, "turns", list)
    for number, entry in enumerate(turns, start=1):
        _replay_turn(state, number, entry)
    recorded = _recorded_result(log)
    rejected = log.get("rejected_turn")
    if rejected is not None:
        _replay_rejected(state, len(turns) + 1, rejected, recorded)
    elif recorded.termination in BOT_FAILURES:
        if state.outcome is not None:
            raise LogMismatch(
                f"the log says {recorded.termination.value}, but the game had already ended: {state.outcome}"
            )
        if recorded.seat is None or not 0 <= recorded.seat < state.players:
            raise LogMismatch(f"the log blames seat {recorded.seat!r}, which is not a seat of this game")
        if turns and recorded.seat != state.to_move:
            # Only before the first turn (starting the bots) can a seat fail out of turn.
            raise LogMismatch(
                f"the log blames seat {recorded.seat} for a {recorded.termination.value}, "
                f"but seat {state.to_move} was to move",
                turn=len(turns) + 1,
            )
        state.forfeit(recorded.seat, recorded.termination, recorded.detail)
    if state.outcome is None:
        raise LogMismatch(
            f"the log ends after {len(turns)} turns, but the game is not over: seat {state.to_move} is to move"
        )
    _compare(state.outcome, recorded)
    return state.outcome


def position_before(log: dict[str, Any], turn: int) -> GameState:
    """The game of `log` just before its turn `turn` (1-based): the logged deal with turns 1 .. turn-1 pushed.

    The whole log is checked first (`replay`), so a position is only ever built from a log that replays. Turn
    `len(turns) + 1` is the position the game ended in (before a rejected turn or a bot's failure), and may be
    over already.
    """
    replay(log)
    turns = log["turns"]
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(turns) + 1:
        raise ValueError(f"turn {turn!r} is not a turn of this game: it has turns 1 to {len(turns)}")
    state = _initial_state(log)
    for number, entry in enumerate(turns[: turn - 1], start=1):
        _replay_turn(state, number, entry)
    return state


def _initial_state(log: dict[str, Any]) -> GameState:
    if not isinstance(log, dict):
        raise LogMismatch("a log is a JSON object")
    _check_keys(log, LOG_KEYS, "the log")
    if log.get("format") != LOG_FORMAT:
        raise LogMismatch(f"not a game log: format is {log.get('format')!r}, expected {LOG_FORMAT!r}")
    if log.get("version") != LOG_VERSION:
        raise LogMismatch(
            f"log version {log.get('version')!r} is not supported (this engine reads version {LOG_VERSION})"
        )
    game = log.get("game")
    if game not in GAME_IDS:
        raise LogMismatch(f"unknown game {game!r}")
    options = _field(log, "options", dict)
    _check_keys(options, OPTION_KEYS, "the log's options")
    for name in ("players", "hand_size"):
        if not _is_int(options[name]):
            raise LogMismatch(f"options: {name} must be an integer, not {options[name]!r}")
    if game == EXTREME:
        _check_command_table(options.get("command_table"))
    decks = _field(log, "decks", list)
    if not all(isinstance(deck, list) and all(_is_int(card) for card in deck) for deck in decks):
        raise LogMismatch("decks must be lists of integer cards")
    seed = str(log.get("seed", ""))
    if log.get("dealt_from_seed"):
        _check_seeded_deal(game, seed, decks)
    start_seat = log.get("start_seat")
    if not _is_int(start_seat):
        raise LogMismatch(f"the log's start_seat must be an integer seat, not {start_seat!r}")
    try:
        state = new_game(
            game,
            options.get("players"),
            seed,
            start_seat=start_seat,
            decks=decks,
            hand_size=options.get("hand_size"),
            command_table=options.get("command_table"),
        )
    except (ValueError, TypeError) as error:
        raise LogMismatch(f"the log's set-up is invalid: {error}") from error
    if log.get("dealt_from_seed") and game in (THE_GAME, EXTREME):
        _check_seeded_start(seed, state.players, start_seat)
    _check_seats(_field(log, "seats", list), state.players)
    return state


def _check_keys(value: dict[str, Any], keys: frozenset[str], what: str, optional: frozenset[str] = frozenset()) -> None:
    """`value` holds every one of `keys` (but the `optional` ones) and nothing else."""
    unknown = sorted(str(key) for key in value if key not in keys)
    if unknown:
        raise LogMismatch(f"{what} has unknown member(s) {unknown}; it has {', '.join(sorted(keys))}")
    missing = sorted(keys - optional - value.keys())
    if missing:
        raise LogMismatch(f"{what} lacks {', '.join(missing)}")


def _check_seats(seats: list[Any], players: int) -> None:
    """One entry per seat of the game, in seat order, each naming its bot and version (or null)."""
    if len(seats) != players:
        raise LogMismatch(f"seats lists {len(seats)} seat(s), but options.players is {players}")
    for index, entry in enumerate(seats):
        if not isinstance(entry, dict):
            raise LogMismatch(f"seats: entry {index} must be an object, not {entry!r}")
        _check_keys(entry, SEAT_KEYS, f"seats: entry {index}")
        if not _is_int(entry["seat"]) or entry["seat"] != index:
            raise LogMismatch(f"seats: entry {index} is for seat {entry['seat']!r}; the entries go in seat order")
        for name in ("bot", "version"):
            if entry[name] is not None and not isinstance(entry[name], str):
                raise LogMismatch(f"seats: entry {index}'s {name} must be a string or null, not {entry[name]!r}")


def _check_command_table(table: Any) -> None:
    """Extreme's table holds each of the 7 commands with 4 distinct cards (RULES.md section 3)."""
    shape = f"Extreme has {len(COMMANDS)} commands of 4 distinct cards each"
    if not isinstance(table, dict):
        raise LogMismatch(f"the command table must be an object ({shape}), not {table!r}")
    unknown = [name for name in table if name not in COMMANDS]
    if unknown:
        raise LogMismatch(f"the command table has unknown command(s) {unknown}; {shape}: {', '.join(COMMANDS)}")
    missing = [name for name in COMMANDS if name not in table]
    if missing:
        raise LogMismatch(f"the command table lacks {', '.join(missing)}; {shape}")
    for name, cards in table.items():
        if not isinstance(cards, list) or not all(map(_is_int, cards)) or len(set(cards)) != 4 or len(cards) != 4:
            raise LogMismatch(f"the command table gives {name} the cards {cards!r}; {shape}")


def _check_seeded_start(seed: str, players: int, start_seat: int) -> None:
    expected = seeded_start_seat(players, seed)
    if start_seat != expected:
        raise LogMismatch(
            f"start_seat: seed {seed!r} draws seat {expected} by lot to start this {players}-player game, "
            f"but the log starts with seat {start_seat}"
        )


def _check_seeded_deal(game: str, seed: str, decks: list[list[int]]) -> None:
    expected = seeded_decks(game, seed)
    for index, (deck, dealt) in enumerate(zip(decks, expected, strict=False)):
        if deck != dealt:
            differences = (i for i, (a, b) in enumerate(zip(deck, dealt, strict=False)) if a != b)
            position = next(differences, min(len(deck), len(dealt)))
            raise LogMismatch(
                f"deck {index} is not the deal of seed {seed!r}: it differs first at position {position + 1}"
            )
    if len(decks) != len(expected):
        raise LogMismatch(f"expected {len(expected)} deck(s) for {game}, the log has {len(decks)}")


def _replay_turn(state: GameState, number: int, entry: Any) -> None:
    if state.outcome is not None:
        raise LogMismatch(f"the game was already over ({state.outcome}), but the log goes on", turn=number)
    if not isinstance(entry, dict):
        raise LogMismatch("a turn entry must be an object", turn=number)
    try:
        _check_keys(entry, TURN_KEYS, "the turn entry")
    except LogMismatch as error:
        raise LogMismatch(str(error), turn=number) from None
    if not _is_int(entry["seat"]):
        raise LogMismatch(f"the turn's seat must be an integer, not {entry['seat']!r}", turn=number)
    if entry["seat"] != state.to_move:
        raise LogMismatch(f"seat {entry['seat']!r} moved, but it was seat {state.to_move}'s turn", turn=number)
    _check_logged_turn(entry, number)
    try:
        turn = Turn.from_json({"plays": entry["plays"], "signals": entry["signals"]})
        state.push(turn, entry["ms"])
    except IllegalTurn as error:
        raise LogMismatch(f"illegal turn by seat {entry['seat']}: {error.message}", turn=number) from error


def _check_logged_turn(entry: dict[str, Any], number: int) -> None:
    """A logged turn is in the log's own form: plays as [card, pile] pairs, signals an object, ms a number or null
    (a bot's turn may come in other forms; the engine logs this one)."""
    plays, signals, ms = entry["plays"], entry["signals"], entry["ms"]
    if not isinstance(plays, list):
        raise LogMismatch(f"the turn's plays must be a list of [card, pile] pairs, not {plays!r}", turn=number)
    for index, play in enumerate(plays, start=1):
        if not (isinstance(play, list) and len(play) == 2 and _is_int(play[0]) and isinstance(play[1], str)):
            raise LogMismatch(f"play {index}: {play!r} is not a [card, pile] pair", turn=number)
    if not isinstance(signals, dict):
        raise LogMismatch(f"the turn's signals must be an object, not {signals!r}", turn=number)
    if not _is_ms(ms):
        raise LogMismatch(f"the turn's ms must be a number or null, not {ms!r}", turn=number)


def _replay_rejected(state: GameState, number: int, rejected: Any, recorded: Outcome) -> None:
    if not isinstance(rejected, dict):
        raise LogMismatch("rejected_turn must be an object", turn=number)
    try:
        _check_keys(rejected, REJECTED_KEYS, "rejected_turn", optional=frozenset({"ms"}))
    except LogMismatch as error:
        raise LogMismatch(str(error), turn=number) from None
    if not _is_ms(rejected.get("ms")):
        raise LogMismatch(f"the rejected turn's ms must be a number or null, not {rejected.get('ms')!r}", turn=number)
    if state.outcome is not None:
        raise LogMismatch(f"a rejected turn is logged, but the game was already over ({state.outcome})", turn=number)
    if not _is_int(rejected.get("seat")):
        raise LogMismatch(f"the rejected turn's seat must be an integer, not {rejected.get('seat')!r}", turn=number)
    if rejected.get("seat") != state.to_move:
        raise LogMismatch(
            f"the rejected turn is seat {rejected.get('seat')!r}'s, but seat {state.to_move} was to move", turn=number
        )
    raw = rejected.get("turn")
    try:
        state.check(Turn.from_json(raw))
    except IllegalTurn as error:
        if error.rule != rejected.get("rule"):
            raise LogMismatch(
                f"the rejected turn breaks rule {error.rule!r}, not {rejected.get('rule')!r} as logged", turn=number
            ) from error
        state.reject(raw, error, rejected.get("ms"))
        return
    raise LogMismatch(f"the turn logged as rejected ({raw!r}) is legal", turn=number)


def _recorded_result(log: dict[str, Any]) -> Outcome:
    result = log.get("result")
    if not isinstance(result, dict):
        raise LogMismatch("the log has no result")
    _check_keys(result, RESULT_KEYS, "the result")
    if not isinstance(result["detail"], str):
        raise LogMismatch(f"result: detail must be a string, not {result['detail']!r}")
    for name in ("winner", "score", "seat"):
        value = result.get(name)
        if value is not None and not _is_int(value):
            raise LogMismatch(f"result: {name} must be an integer or null, not {value!r}")
    try:
        return Outcome.from_json(result)
    except (KeyError, ValueError) as error:
        raise LogMismatch(f"the log's result is malformed: {error}") from error


def _compare(actual: Outcome, recorded: Outcome) -> None:
    for name in ("termination", "winner", "score", "seat"):
        mine, theirs = getattr(actual, name), getattr(recorded, name)
        if mine != theirs:
            raise LogMismatch(
                f"result: the log says {name} {_plain(theirs)!r}, the replay gives {_plain(mine)!r} ({actual})"
            )


def _plain(value: object) -> object:
    return value.value if isinstance(value, Termination) else value


def _field(log: dict[str, Any], name: str, kind: type) -> Any:
    value = log.get(name)
    if not isinstance(value, kind):
        raise LogMismatch(f"the log's {name!r} must be a {kind.__name__}")
    return value


def _is_ms(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _is_int(value: Any) -> bool:
    """A JSON integer: Python's bool is an int, and 1.0 == 1, but neither is a card, seat or score."""
    return isinstance(value, int) and not isinstance(value, bool)
