"""Creating a game from a game id, a player count, a seed and rule options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games import coop, face_to_face
from games.catalog import EXTREME, FACE_TO_FACE, GAME_IDS, THE_GAME
from games.commands import DEFAULT_TABLE, card_commands
from games.shuffle import choice_index, shuffled
from games.state import GameState


def new_game(
    game_id: str,
    players: int | None = None,
    seed: int | str = 0,
    *,
    start_seat: int | None = None,
    decks: Sequence[Sequence[int]] | None = None,
    hand_size: int | None = None,
    command_table: Mapping[str, Sequence[int]] | None = None,
) -> GameState:
    """A new game. `decks` (in draw order, as a log records them) replaces the seeded shuffle;
    `start_seat` replaces the seeded lot for the starting player."""
    seed_text = str(seed)
    state = _create(game_id, players, seed_text, start_seat, decks, hand_size, command_table)
    state.log.dealt_from_seed = decks is None
    return state


def seeded_decks(game_id: str, seed: int | str) -> list[list[int]]:
    """The decks (in draw order) that `seed` deals for `game_id`."""
    seed_text = str(seed)
    if game_id == FACE_TO_FACE:
        return [shuffled(face_to_face.CARDS, seed_text, f"deck{seat}") for seat in range(2)]
    if game_id in (THE_GAME, EXTREME):
        return [shuffled(coop.CARDS, seed_text, "deck")]
    raise ValueError(f"unknown game {game_id!r}; games are {', '.join(GAME_IDS)}")


def seeded_start_seat(players: int, seed: int | str) -> int:
    """The starting seat that `seed` draws by lot among `players` seats (RULES.md sections 1 and 2)."""
    return choice_index(players, str(seed), "start")


def _create(
    game_id: str,
    players: int | None,
    seed_text: str,
    start_seat: int | None,
    decks: Sequence[Sequence[int]] | None,
    hand_size: int | None,
    command_table: Mapping[str, Sequence[int]] | None,
) -> GameState:
    if game_id == FACE_TO_FACE:
        if players not in (None, 2):
            raise ValueError(f"face-to-face is for exactly 2 players, not {players}")
        if hand_size not in (None, face_to_face.HAND_SIZE) or command_table is not None:
            raise ValueError(f"face-to-face deals {face_to_face.HAND_SIZE} cards and has no command table")
        if decks is None:
            decks = seeded_decks(game_id, seed_text)
        _check_decks(decks, 2, face_to_face.CARDS)
        start = _start_seat(start_seat, 2, seed_text)
        return face_to_face.FaceToFaceState([list(deck) for deck in decks], start, seed_text)
    if game_id in (THE_GAME, EXTREME):
        players = 1 if players is None else players
        if players not in coop.HAND_SIZES:
            raise ValueError(f"{game_id} is for 1 to 5 players, not {players}")
        size = coop.HAND_SIZES[players]
        if hand_size is not None and hand_size != size:
            raise ValueError(f"hand size {hand_size!r}: the rules deal {size} cards to each of {players} player(s)")
        if game_id == THE_GAME and command_table is not None:
            raise ValueError("command tables are for the extreme game only")
        table = card_commands(DEFAULT_TABLE if command_table is None else command_table) if game_id == EXTREME else {}
        if decks is None:
            decks = seeded_decks(game_id, seed_text)
        _check_decks(decks, 1, coop.CARDS)
        start = _start_seat(start_seat, players, seed_text)
        return coop.CoopState(game_id, players, list(decks[0]), start, seed_text, size, table)
    raise ValueError(f"unknown game {game_id!r}; games are {', '.join(GAME_IDS)}")


def _start_seat(start_seat: int | None, players: int, seed: str) -> int:
    if start_seat is None:
        return seeded_start_seat(players, seed)
    if isinstance(start_seat, bool) or not isinstance(start_seat, int) or not 0 <= start_seat < players:
        raise ValueError(f"start seat {start_seat!r} is not a seat of {players} player(s)")
    return start_seat


def _check_decks(decks: Sequence[Sequence[int]], count: int, cards: range) -> None:
    if len(decks) != count:
        raise ValueError(f"expected {count} deck(s), got {len(decks)}")
    for index, deck in enumerate(decks):
        if sorted(deck) != list(cards):
            missing = sorted(set(cards) - set(deck))
            extra = sorted(card for card in deck if card not in cards)
            repeated = sorted({card for card in deck if list(deck).count(card) > 1})
            raise ValueError(
                f"deck {index} is not the cards {cards.start}..{cards.stop - 1} once each"
                f" (missing {missing[:5]}, not cards {extra[:5]}, repeated {repeated[:5]})"
            )
