"""Game analyses in the league: anyone asks (`requests`), a worker runs the house expert's analysis on the analysis
queue (`runs`), owners may have their bots' lost rated games analysed on their own (`automatic`), and a bot's page
lists its worst blunders (`blunders`). The analysis itself is `bots.analysis` (docs/analysis.md)."""
