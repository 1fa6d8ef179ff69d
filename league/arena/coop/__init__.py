"""The co-op games' challenge ladders (The Game, The Game Extreme): seasons of published deals and the matches that
play them, each deal's results, per-version standings and duplicate comparisons, the leaderboards, and their pages
and admin. Their Elo comes from the ladder's fit (`league.arena.ladder`) over a co-op rating pool."""
