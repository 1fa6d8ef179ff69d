"""`python -m bots new FILE --game G`: write the starter bot of a game, a complete legal bot to make smarter.

The starters are docs/starters/ in the repository; the author's kit carries them as bots/starters/ (bots/kit.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import games

STARTER_FILES = {games.FACE_TO_FACE: "face_to_face.py", games.THE_GAME: "the_game.py", games.EXTREME: "extreme.py"}
STARTER_DIRS = (
    Path(__file__).resolve().with_name("starters"),  # the installed kit
    Path(__file__).resolve().parent.parent / "docs" / "starters",  # a checkout
)


def starter_source(game: str) -> str:
    """The starter bot of `game` as Python source."""
    for folder in STARTER_DIRS:
        path = folder / STARTER_FILES[game]
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"no starter for {game}: looked in {', '.join(str(folder) for folder in STARTER_DIRS)}")


def add_parser(commands: Any) -> None:
    """Add the `new` subcommand to `python -m bots`."""
    new = commands.add_parser("new", help="write a starter bot to edit")
    new.add_argument("file", type=Path, nargs="?", default=Path("my_bot.py"), help="where (default my_bot.py)")
    new.add_argument("--game", required=True, choices=games.GAME_IDS)


def run(args: argparse.Namespace) -> int:
    """Write the starter; 2 when the file exists (nothing is overwritten) or cannot be written."""
    if args.file.exists():
        print(f"error: {args.file} exists; choose another name (nothing was written)", file=sys.stderr)
        return 2
    try:
        source = starter_source(args.game)
        with args.file.open("x", encoding="utf-8") as out:
            out.write(source)
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.file}, the starter bot for {games.GAME_NAMES[args.game]}; try it with")
    print(f"  python -m bots play {args.file} house:greedy --game {args.game} --games 20")
    return 0
