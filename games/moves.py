"""Plays and turns: small frozen values with a text form and a JSON form."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from games.errors import IllegalTurn

SIGNAL_VALUES = ("none", "keep-off", "jump")


class Play(NamedTuple):
    """One card put on one pile. (A NamedTuple rather than a dataclass: turns are parsed in the hot loop.)"""

    card: int
    pile: str

    def __str__(self) -> str:
        return f"{self.card}>{self.pile}"

    def to_json(self) -> list[Any]:
        return [self.card, self.pile]


_new_tuple = tuple.__new__  # builds a Play without NamedTuple's Python-level __new__


@dataclass(frozen=True, slots=True)
class Turn:
    """The ordered plays a player makes before drawing, plus (co-op games) the signals set after them.

    An immutable, hashable value, as a python-chess move is: `plays` is a tuple of Play and `signals` a tuple of
    (pile, value) pairs in the order given. The constructor also takes a list of plays and a mapping (or pairs)
    of signals and stores them as tuples; the JSON form keeps signals as an object.
    """

    plays: tuple[Play, ...]
    signals: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if type(self.plays) is not tuple:
            object.__setattr__(self, "plays", tuple(Play(*play) for play in self.plays))
        if type(self.signals) is not tuple:
            object.__setattr__(self, "signals", _signal_pairs(self.signals))

    def __str__(self) -> str:
        text = " ".join(str(play) for play in self.plays)
        if self.signals:
            text += " | " + " ".join(f"{pile}={value}" for pile, value in self.signals)
        return text

    def to_json(self) -> dict[str, Any]:
        return {"plays": [play.to_json() for play in self.plays], "signals": self.signals_json()}

    def signals_json(self) -> dict[str, str]:
        """The signals as the JSON object a log and a bot use: {pile: value}."""
        return dict(self.signals)

    @classmethod
    def from_json(cls, data: Any) -> Turn:
        """Parse a bot's turn: {"plays": [[card, pile], ...], "signals": {...}} or a bare list of plays."""
        if isinstance(data, Turn):
            return data
        if isinstance(data, (list, tuple)):
            raw_plays, raw_signals = list(data), {}
        elif isinstance(data, dict):
            unknown = [key for key in data if key != "plays" and key != "signals"]
            if unknown:
                raise _malformed(f"unknown key(s) {sorted(unknown)}; a turn has 'plays' and 'signals'")
            raw_plays = data.get("plays")
            raw_signals = data.get("signals") or {}
            if not isinstance(raw_plays, list):
                raise _malformed("'plays' must be a list of [card, pile] pairs")
            if not isinstance(raw_signals, dict):
                raise _malformed("'signals' must map pile names to none, keep-off or jump")
        else:
            raise _malformed(f"a turn must be an object or a list, not {type(data).__name__}")
        plays = []
        for index, raw in enumerate(raw_plays, start=1):
            if type(raw) is list and len(raw) == 2 and type(raw[0]) is int and type(raw[1]) is str:
                plays.append(_new_tuple(Play, raw))
            else:
                plays.append(_parse_play(index, raw))
        for pile, value in raw_signals.items():
            if not isinstance(pile, str) or value not in SIGNAL_VALUES:
                raise _malformed(f"signal {pile!r}={value!r}: a signal is none, keep-off or jump")
        return cls(tuple(plays), tuple(raw_signals.items()))

    @classmethod
    def parse(cls, text: str) -> Turn:
        """Parse the text form, e.g. ``17>up1 7>up1 | up1=jump``."""
        plays_text, _, signals_text = text.partition("|")
        plays = []
        for token in plays_text.split():
            card, sep, pile = token.partition(">")
            if not sep or not card.isdigit():
                raise _malformed(f"{token!r} is not a play; write card>pile, e.g. 17>up1")
            plays.append([int(card), pile])
        signals = dict(token.partition("=")[::2] for token in signals_text.split())
        return cls.from_json({"plays": plays, "signals": signals})


def _signal_pairs(signals: Mapping[str, str] | Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    pairs = signals.items() if isinstance(signals, Mapping) else signals
    return tuple((pile, value) for pile, value in pairs)


PLAY_KEYS = ("card", "pile")


def _parse_play(index: int, raw: Any) -> Play:
    if isinstance(raw, dict):
        unknown = sorted(str(key) for key in raw if key not in PLAY_KEYS)
        if unknown:
            raise _malformed(f"play {index}: unknown key(s) {unknown}; a play has 'card' and 'pile'", index)
        raw = [raw.get("card"), raw.get("pile")]
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise _malformed(f"play {index}: {raw!r} is not a [card, pile] pair", index)
    card, pile = raw
    if isinstance(card, bool) or not isinstance(card, int) or not isinstance(pile, str):
        raise _malformed(f"play {index}: {raw!r} needs an integer card and a pile name", index)
    return Play(card, pile)


def _malformed(message: str, play_index: int | None = None) -> IllegalTurn:
    return IllegalTurn(f"malformed turn: {message}", rule="malformed-turn", play_index=play_index)
