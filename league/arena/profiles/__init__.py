"""What the public sees of a bot and an owner: a bot's page (rating, history, games, head-to-head, versions) and an
owner's page with their bots' ranks."""
