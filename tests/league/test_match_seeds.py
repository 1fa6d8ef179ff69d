"""A bot sees its match's seed: every kind of match gets one that looks the same, 32 hex digits, naming nothing."""

from __future__ import annotations

import re

from league.arena.ladder import scheduling
from league.arena.lib import seeds
from league.arena.models import Match, Tournament, TournamentEntry
from league.arena.tournaments import starting as tournaments
from league.arena.uploads.intake import add_version, inspect_upload

LOOKS_RANDOM = re.compile(r"^[0-9a-f]{32}$")


def test_validation_ladder_and_tournament_seeds_look_alike(alice, bob, make_version, sent):
    versions = [make_version(alice, "a"), make_version(bob, "b"), make_version(alice, "c")]
    scheduling.schedule("face-to-face")
    cup = Tournament.objects.create(name="cup")
    for version in versions:
        TournamentEntry.objects.create(tournament=cup, bot=version.bot)
    tournaments.start(cup.pk)
    add_version(versions[0].bot, inspect_upload("bot.py", b"def play(observation):\n    return []\n"))
    kinds = set(Match.objects.values_list("kind", flat=True))
    assert kinds == {"ladder", "tournament", "validation"}
    seen = list(Match.objects.values_list("kind", "seed"))
    assert all(LOOKS_RANDOM.match(seed) for _, seed in seen), seen
    assert len({seed for _, seed in seen}) == len(seen)


def test_derived_seeds_are_stable_and_keyed(settings):
    first = seeds.derived_seed("validate-abc")
    assert seeds.derived_seed("validate-abc") == first and LOOKS_RANDOM.match(first)
    assert seeds.derived_seed("validate-abd") != first
    settings.SECRET_KEY = "another key entirely, as another deployment would have it"
    assert seeds.derived_seed("validate-abc") != first
