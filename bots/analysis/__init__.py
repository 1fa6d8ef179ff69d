"""Game analysis: the house expert judges every turn of a logged game (see docs/analysis.md)."""
