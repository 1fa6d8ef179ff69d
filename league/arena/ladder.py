"""The whole leaderboard as one list, kept only until the pages use `leaderboards.leaderboard_page` / `top`.

What this module held is now split: scheduling (who plays whom), refits (ratings) and leaderboards (queries).
"""

from __future__ import annotations

from league.arena.leaderboards import LadderRow, ranked, top

__all__ = ["LadderRow", "leaderboard"]


def leaderboard(game: str) -> list[LadderRow]:
    """Every row of the game's board (unbounded: prefer `leaderboards.leaderboard_page`)."""
    return top(game, ranked(game).count())
