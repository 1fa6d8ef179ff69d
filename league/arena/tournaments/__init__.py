"""Tournaments: starting one (freeze versions, queue every match) and finishing it, its standings and crosstable
(competitive and co-op), what the staff do to it (fill, open or close registration, cancel, re-run), and its pages
and admin."""
