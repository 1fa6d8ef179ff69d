"""Running the league: the staff's machinery page (queues, running matches, workers, refits), the liveness check,
how a worker process is started, and the upkeep that re-derives lost work from the database."""
