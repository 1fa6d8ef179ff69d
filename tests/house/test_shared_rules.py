"""The house bots greedy and random share the rules a turn must follow, line for line.

Each is a single standard-library file on purpose (it also runs as a plain uploaded bot), so each carries its own
copy of `_Turn`. The copies stand between the same two marker lines in both files and must stay identical there,
so that a fix to one cannot silently miss the other; what only one bot needs follows the end marker.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import bots.house

HOUSE = Path(bots.house.__file__).parent
BOTS = ("greedy.py", "random_bot.py")
BEGIN = "# --- the rules a turn must follow"
END = "# --- end of the rules greedy.py and random_bot.py share"


def split(name: str) -> tuple[list[str], list[str]]:
    """(the shared block, marker lines included; the rest of the file) of one house bot's source."""
    lines = (HOUSE / name).read_text().splitlines()
    begins = [number for number, line in enumerate(lines) if line.startswith(BEGIN)]
    ends = [number for number, line in enumerate(lines) if line.strip().startswith(END)]
    assert len(begins) == 1 and len(ends) == 1, f"{name}: one begin and one end marker, found {begins} and {ends}"
    begin, end = begins[0], ends[0] + 1
    assert begin < end, f"{name}: the end marker comes before the begin marker"
    return lines[begin:end], lines[:begin] + lines[end:]


def test_greedy_and_random_keep_the_shared_rules_identical():
    greedy, random_bot = (split(name)[0] for name in BOTS)
    difference = "\n".join(difflib.unified_diff(greedy, random_bot, *BOTS, lineterm=""))
    assert not difference, f"change both copies of the shared rules alike:\n{difference}"


def test_the_shared_block_is_the_whole_model_of_a_turn():
    block = "\n".join(split("greedy.py")[0])
    for part in ("class _Turn", "def __init__", "def moves", "def hopeless", "def can_end", "def apply", "def undo"):
        assert part in block, f"{part} is outside the shared block"
    assert len(block.splitlines()) >= 90


def test_nothing_else_is_copied_between_them_unmarked():
    """Six or more lines alike outside the block would be a second copy nobody compares: mark it or share it."""
    greedy, random_bot = ([line.strip() for line in split(name)[1] if line.strip()] for name in BOTS)
    matcher = difflib.SequenceMatcher(None, greedy, random_bot, autojunk=False)
    copies = [greedy[m.a : m.a + m.size] for m in matcher.get_matching_blocks() if m.size >= 6]
    assert not copies, f"copied outside the shared block: {copies}"
