"""Where a test stands: its counts, LLR and verdict, the Elo estimate, as a record and in plain words.

The record (`Status.to_json`) is what `python -m bots sprt --json` prints and what the league's API serves,
so both report the same numbers, recomputed from the counts each time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bots.sprt.counts import Counts
from bots.sprt.elo import EloEstimate, estimate
from bots.sprt.gsprt import SPRT, Verdict


@dataclass(frozen=True)
class Status:
    test: SPRT
    counts: Counts
    llr: float
    verdict: Verdict | None
    estimate: EloEstimate

    @classmethod
    def of(cls, test: SPRT, counts: Counts) -> Status:
        llr = test.llr(counts)
        return cls(test, counts, llr, test.verdict(llr), estimate(counts))

    def to_json(self) -> dict[str, Any]:
        e = self.estimate
        return {
            "verdict": None if self.verdict is None else str(self.verdict),
            "llr": round(self.llr, 6),
            "lower": round(self.test.lower, 6),
            "upper": round(self.test.upper, 6),
            **self.test.to_json(),
            "games": self.counts.games,
            "pairs": self.counts.pairs,
            self.counts.kind: self.counts.to_json(),
            "score": round(e.score, 6),
            "elo": round(e.elo, 3),
            "elo_ci": [round(e.elo_low, 3), round(e.elo_high, 3)],
            "elo_error": round(e.error, 3),
            "los": round(e.los, 6),
            "nelo": round(e.nelo, 3),
            "nelo_ci": [round(e.nelo_low, 3), round(e.nelo_high, 3)],
        }

    def elo_text(self) -> str:
        return f"{self.estimate.elo:+.1f} ± {self.estimate.error:.1f} Elo"

    def progress_line(self) -> str:
        """One line for a terminal: games, LLR against its bounds, Elo with its interval."""
        return (
            f"{self.counts.games:,} games  LLR {self.llr:+.2f} [{self.test.lower:.2f}, {self.test.upper:.2f}]  "
            f"{self.elo_text()}  LOS {100 * self.estimate.los:.1f}%"
        )

    def sentence(self, new: str, base: str, finished: bool = True) -> str:
        """The verdict in plain words, e.g. "v7 is stronger than v6: +23 ± 9 Elo after 1,840 games"."""
        after = f"{self.elo_text()} after {self.counts.games:,} games"
        if self.verdict is None:
            state = "no verdict at the game cap" if finished else "no verdict yet"
            return f"{new} against {base}: {state}, {after}"
        return f"{new} {self.relation()} {base}: {after}"

    def relation(self) -> str:
        """What the accepted hypothesis says of NEW against BASE."""
        if self.verdict == Verdict.H1:
            return "is stronger than" if self.test.elo0 >= 0 else "is not weaker than"
        return "is not stronger than" if self.test.elo0 >= 0 else "is weaker than"
