"""The Game Extreme's command cards (RULES.md section 3)."""

from __future__ import annotations

from collections.abc import Mapping

STOP, SKULL, THREE = "stop", "skull", "three"
SILENCE, NO_TRICK, ONE_PILE, DRAW_ONE = "silence", "no-trick", "one-pile", "draw-one"

LIGHTNING = (STOP, SKULL, THREE)
INFINITY = (SILENCE, NO_TRICK, ONE_PILE, DRAW_ONE)
COMMANDS = LIGHTNING + INFINITY

DEFAULT_TABLE: dict[str, tuple[int, ...]] = {
    STOP: (4, 28, 53, 77),
    SKULL: (7, 32, 56, 81),
    THREE: (11, 35, 60, 84),
    SILENCE: (14, 39, 63, 88),
    NO_TRICK: (18, 42, 67, 91),
    ONE_PILE: (21, 46, 70, 95),
    DRAW_ONE: (25, 49, 74, 98),
}


def card_commands(table: Mapping[str, object]) -> dict[int, str]:
    """Turn a table {command: [cards]} into {card: command}, rejecting anything malformed."""
    by_card: dict[int, str] = {}
    for command, cards in table.items():
        if command not in COMMANDS:
            raise ValueError(f"unknown command {command!r}; commands are {', '.join(COMMANDS)}")
        if not isinstance(cards, (list, tuple)):
            raise ValueError(f"command {command!r} needs a list of cards, not {cards!r}")
        for card in cards:
            if isinstance(card, bool) or not isinstance(card, int) or not 2 <= card <= 99:
                raise ValueError(f"command {command!r}: {card!r} is not a card from 2 to 99")
            if card in by_card:
                raise ValueError(f"card {card} carries two commands ({by_card[card]} and {command})")
            by_card[card] = command
    return by_card


def table_json(by_card: Mapping[int, str]) -> dict[str, list[int]]:
    """The log's form of a command table: {command: sorted cards}, in the rules' order."""
    table: dict[str, list[int]] = {}
    for command in COMMANDS:
        cards = sorted(card for card, name in by_card.items() if name == command)
        if cards:
            table[command] = cards
    return table
