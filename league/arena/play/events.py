"""What happens to a match, told to whoever cares: storing a match knows only its games and their aggregates.

- `match_stored(match, versions, games, result)`: sent inside the transaction that stored the match's games
  (`games`, the stored `Game` rows; `result`, the runner's `MatchResult`), so a handler's writes commit or roll back
  with them, and a handler's error fails the store like any other. Handlers: a refit of the ratings
  (ladder/refits.py), the co-op season's results (coop/results.py), a validation's verdict (uploads/validation.py),
  a tournament's table and end (tournaments/starting.py), the next scrim games and, after the last, the requester
  told (scrims/requests.py).
- `match_failed(match, versions, reason)`: sent inside the transaction that failed the match for good (the server
  could not run it). Handlers: a validation fails its version (uploads/validation.py), a tournament is told one of
  its matches is over (tournaments/starting.py), a scrim's requester is told it stopped (scrims/requests.py).

Each handler module is imported when the app is ready (`ArenaConfig.ready`), so every process, workers included,
has every handler connected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.dispatch import Signal

from league.arena.models import BotVersion, Game, Match

match_stored = Signal()
match_failed = Signal()


def send_match_stored(match: Match, versions: Sequence[BotVersion], games: Sequence[Game], result: Any) -> None:
    match_stored.send(sender=Match, match=match, versions=list(versions), games=list(games), result=result)


def send_match_failed(match: Match, versions: Sequence[BotVersion], reason: str) -> None:
    match_failed.send(sender=Match, match=match, versions=list(versions), reason=reason)
