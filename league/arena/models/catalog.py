"""The games the league plays, as the models and pages name them: ids, names, kinds, team sizes."""

from __future__ import annotations

import games

FACE_TO_FACE = games.FACE_TO_FACE
GAME_NAMES = dict(games.GAME_NAMES)
GAME_CHOICES = list(GAME_NAMES.items())
COMPETITIVE_GAMES = {FACE_TO_FACE}
TERMINATION_CHOICES = [(termination.value, termination.value) for termination in games.Termination]
FORFEITS = games.FORFEITS  # the terminations where a bot lost by its own fault (members compare equal to their text)
COOP_GAMES = tuple(game for game, _ in GAME_CHOICES if game not in COMPETITIVE_GAMES)
TEAM_SIZES = (1, 2, 3, 4, 5)
CARDS_IN_DECK = 98
