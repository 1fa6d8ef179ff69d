"""Helpers the whole league app shares that import no model: retrying, seeds, change signals, rate limits, the page
cache, request-size middleware and claim heartbeats. Every folder of `league.arena` may import from here; nothing
here imports from the rest of the app."""
