"""Request plumbing the views of every folder share: loading a bot and who may act on it or see its private side,
rate-limited views, and the ?page= of a list page."""
