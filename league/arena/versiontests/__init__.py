"""Version tests in the league: an owner asks whether a version is stronger than another (bots.sprt's GSPRT).

`running` starts, releases, folds and cancels tests; `chart` draws the LLR against its bounds; `views` the pages.
"""
