"""Events the league's data sends when what a page shows has changed, for caches to drop stale copies.

Both are sent once the transaction that made the change commits (never for a change rolled back):

- `leaderboard_changed(game=...)`: a refit stored new ratings of `game`, or the ladder's membership
  changed (a version became active or failed validation, a bot was retired).
- `tournament_changed(tournament_id=...)`: a tournament match was stored, or the tournament started or finished.
- `validation_finished(owner_id=..., version_id=..., passed=...)`: a version of the user's was judged (active or
  failed), so another of their waiting versions may start its validation, and its owner is told the verdict
  (league/arena/uploads/validation.py).
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

leaderboard_changed = Signal()
tournament_changed = Signal()
validation_finished = Signal()


def send_leaderboard_changed(game: str) -> None:
    """Announce, on commit, that `game`'s leaderboard shows something new."""
    transaction.on_commit(lambda: leaderboard_changed.send(sender=None, game=game))


def send_tournament_changed(tournament_id: int) -> None:
    """Announce, on commit, that the tournament's standings or status changed."""
    transaction.on_commit(lambda: tournament_changed.send(sender=None, tournament_id=tournament_id))


def send_validation_finished(owner_id: int, version_id: int | None = None, passed: bool | None = None) -> None:
    """Announce, on commit, that one of the user's validations ended (the version's, passed or not)."""
    transaction.on_commit(
        lambda: validation_finished.send(sender=None, owner_id=owner_id, version_id=version_id, passed=passed)
    )
