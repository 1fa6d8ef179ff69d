"""Scrims: an owner's request for unrated games of its bot against another active bot, released into matches while
the league has room, with its progress, result in words, and pages."""
