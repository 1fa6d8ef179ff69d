"""Bots and their versions from upload to the ladder: checking and storing an upload, validating it (fairly queued
per owner), the house bots as ladder members, what an owner does to a bot or a version afterwards (rename, retire,
prune, download, validate again), the upload forms and the owner's controls."""
