"""Broken bots for validation's measurements and tests: the house bot greedy's source with one defect added.

Each file here holds only the defect: it is appended to greedy.py's source, keeps greedy's `play` as `_legal_play`
and defines its own `play`. A greedy-strength bot makes games as long as a real contender's (against greedy half of
them pass the 40th turn; the starter bots' games are shorter), which is where the late defects show.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
GREEDY = HERE.parents[1] / "bots" / "house" / "greedy.py"
NAMES = ("illegal_sometimes", "crash_after", "slow_long")


def source(name: str, **replace: str) -> bytes:
    """The upload of broken bot `name`: greedy's source, then the defect (with `replace`'s texts substituted)."""
    if name not in NAMES:
        raise ValueError(f"no broken bot {name!r}; the broken bots are {', '.join(NAMES)}")
    defect = (HERE / f"{name}.py").read_text()
    for old, new in replace.items():
        if old not in defect:
            raise ValueError(f"{name}.py holds no {old!r} to replace")
        defect = defect.replace(old, new)
    return (GREEDY.read_text() + "\n\n# --- the defect ---\n" + defect).encode()
