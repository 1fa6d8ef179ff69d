"""What a bot sends that goes further than the runner: its turns, bounded; its text, made storable.

A turn is kept in the game log when it is rejected, and the log is written by orjson and stored by the league;
a bot's error detail and stderr reach the log and the database. Valid JSON is not enough for those:
orjson refuses integers beyond 64 bits, nesting deeper than 255 and strings with lone surrogates
("\\ud800" decodes to one), and PostgreSQL's text columns refuse NUL. So a turn outside these bounds is
the bot's protocol error (`turn_problem` names what is wrong), and every text of a bot passes
`storable_text` before it is logged or stored.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 32  # a turn is 3 deep ({"plays": [[card, pile]]}); a signal map 2
MAX_INT = 2**63 - 1
MIN_INT = -(2**63)
MAX_STRING = 1000  # characters in one string of a turn (pile names, signals)
TEXT_CAP = 4000  # characters of a bot's text kept in a log or a column (a detail, a stderr tail)
_PRIMITIVES = (bool, float, type(None))
_RAISED = re.compile(r"(new_game|play|loading bot\.py) raised ([A-Za-z_][A-Za-z0-9_]{0,99})(?::|$)")


def turn_problem(value: Any) -> str | None:
    """Why `value` (a decoded turn) cannot be logged, or None if it can."""
    return None if _plain_plays(value) else _walk(value)


def _walk(value: Any) -> str | None:
    """turn_problem for any value: every string, integer and container in it, to any depth."""
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        kind = type(item)
        if kind is str:
            problem = _string_problem(item)
            if problem:
                return problem
        elif kind is int:
            if not MIN_INT <= item <= MAX_INT:
                return f"holds an integer of {item.bit_length()} bits; integers are limited to 64"
        elif kind is list or kind is dict:
            if depth > MAX_DEPTH:
                return f"is nested more than {MAX_DEPTH} deep"
            if kind is dict:
                for key in item:
                    problem = _string_problem(key) if type(key) is str else "has an object key that is not a string"
                    if problem:
                        return problem
                item = item.values()
            todo.extend((child, depth + 1) for child in item)
        elif kind not in _PRIMITIVES:
            return f"holds a {kind.__name__}, which is not a JSON value"
    return None


def _plain_plays(value: Any) -> bool:
    """Whether `value` is the usual Face to Face turn, {"plays": [[card, pile], ...]}, within every bound: most turns
    a sandboxed bot sends, checked in one pass over the plays (about a sixth of what the general walk costs)."""
    if type(value) is not dict or len(value) != 1:
        return False
    plays = value.get("plays")
    if type(plays) is not list:
        return False
    for play in plays:
        if type(play) is not list or len(play) != 2:
            return False
        card, pile = play
        if type(card) is not int or not MIN_INT <= card <= MAX_INT:
            return False
        if type(pile) is not str or len(pile) > MAX_STRING or not pile.isascii():
            return False
    return True


def _string_problem(text: str) -> str | None:
    if len(text) > MAX_STRING:
        return f"holds a string of {len(text)} characters; strings are limited to {MAX_STRING}"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "holds a string with a lone surrogate (not a Unicode character)"
    return None


def storable_text(text: str, cap: int = TEXT_CAP, tail: bool = False) -> str:
    """`text` as every log and database can hold it: lone surrogates escaped, NULs dropped, at most `cap`
    characters (its start, or with `tail` its end)."""
    if not text.isascii():
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = text.replace("\x00", "")
    if len(text) <= cap:
        return text
    return "..." + text[-(cap - 3) :] if tail else text[: cap - 3] + "..."


def public_error(detail: str) -> str:
    """What the public may see of the harness's detail of a bot's exception ("play raised ValueError: <message>"):
    where it raised and the exception's type, never its message (that reaches the owner through the bot's log)."""
    match = _RAISED.match(detail)
    if match is None:
        return "the bot raised an exception"
    return f"{match[1]} raised {match[2]}"
