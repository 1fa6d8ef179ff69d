"""Playing and storing matches: a worker claims a match, runs it through the bots runner and stores its games with
the aggregates every reader uses (then tells whoever handles a stored match); the replay viewer's data, the match
and game pages, and results in words."""
