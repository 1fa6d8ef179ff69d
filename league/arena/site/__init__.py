"""The site's frame: the home page, the documentation pages, what every template sees, and the request plumbing the
views of every folder share (loading a bot, who may see its private side, rate limits, the ?page= of a list)."""
