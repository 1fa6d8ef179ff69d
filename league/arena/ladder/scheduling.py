"""The continuous ladder's schedule: who plays whom next, read from the database and queued.

Each bot on the ladder (`Bot.objects.on_ladder()`) takes part with its newest active version (`Bot.active_version`);
every version keeps its own rating. The choice itself is `pairing.choose`, a pure function of the members' ratings,
variances and counts (so `bench.ladder_sim` runs the same choice without a database); this module reads them:
- a member's Elo and variance from its stored `Rating` (the variance from its 95 % interval; infinite while unrated),
  its matches as its rated games over ARENA_LADDER_GAMES, and whether it is a house bot (an anchor);
- how often two members met, from their `PairResult` games over ARENA_LADDER_GAMES, plus their pending matches.

A ladder match is scheduled whenever there is room: by the beat every ARENA_LADDER_INTERVAL seconds, and at once
whenever the leaderboard changes (a refit stored new ratings, or a version became active or left the ladder), so
a match's place is filled as soon as its result is fitted and a new version starts its placement on activation.
A version being placed may play ARENA_LADDER_PLACEMENT_PARALLEL matches at once (its first matches go to it);
everyone else plays one at a time.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Hashable

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.dispatch import receiver

from league.arena import queue
from league.arena.ladder import bradley_terry, pairing
from league.arena.lib import seeds, signals
from league.arena.models import COMPETITIVE_GAMES, BotVersion, Match, MatchEntry, PairResult, Rating, ScheduleLock

PENDING = [Match.Status.QUEUED, Match.Status.RUNNING]


def members(game: str) -> list[BotVersion]:
    """The ladder version of every bot of this game that is on the ladder."""
    ladder = BotVersion.objects.on_ladder().filter(bot__game=game)
    return list(ladder.select_related("bot__owner").order_by("pk"))


def rules() -> pairing.Rules:
    return pairing.Rules(
        placement_matches=settings.ARENA_LADDER_PLACEMENT_MATCHES, fair_share=settings.ARENA_LADDER_FAIR_SHARE
    )


def variance(low: float, high: float) -> float:
    """The Elo variance behind a stored 95 % interval (infinite for a version without games)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.inf
    return ((high - low) / (2.0 * bradley_terry.Z95)) ** 2


def as_member(version: BotVersion, rating: tuple[float, float, float, int] | None) -> pairing.Member:
    anchor = version.kind == BotVersion.Kind.HOUSE
    if rating is None:
        return pairing.Member(version.pk, 1500.0, math.inf, 0.0, anchor)
    elo, low, high, games = rating
    return pairing.Member(version.pk, elo, variance(low, high), games / settings.ARENA_LADDER_GAMES, anchor)


def pair(
    ladder: list[BotVersion],
    ratings: dict[int, tuple[float, float, float, int]],
    met: dict[tuple[Hashable, Hashable], float],
    room: int,
    rng: np.random.Generator | None = None,
    busy: Collection[int] = (),
) -> list[tuple[BotVersion, BotVersion]]:
    """Up to `room` pairs of the `ladder`'s members not `busy` (distinct bots, each in one pair at most): see
    `pairing.choose`. `ratings[pk]` is a version's (elo, low, high, rated games); `met` its matches with each other.
    """
    by_key = {version.pk: version for version in ladder}
    chosen = pairing.choose(
        [as_member(version, ratings.get(version.pk)) for version in ladder],
        met,
        room,
        rng or np.random.default_rng(),
        rules(),
        busy,
    )
    return [(by_key[a], by_key[b]) for a, b in chosen]


def _lock(game: str) -> None:
    """Hold the game's scheduler lock until the transaction ends (one scheduler per game at a time)."""
    ScheduleLock.objects.get_or_create(game=game)
    ScheduleLock.objects.select_for_update().get(game=game)


def _pending_pairs(game: str) -> list[tuple[int, int]]:
    """The two versions of each ladder match of the game still waiting or running."""
    entries = MatchEntry.objects.filter(
        match__kind=Match.Kind.LADDER, match__game=game, match__status__in=PENDING
    ).values_list("match_id", "version_id")
    by_match: dict[int, list[int]] = {}
    for match_id, version_id in entries:
        by_match.setdefault(match_id, []).append(version_id)
    return [(pair[0], pair[1]) for pair in by_match.values() if len(pair) == 2]


def _met(game: str, pending: list[tuple[int, int]]) -> dict[tuple[Hashable, Hashable], float]:
    """Matches each pair of ladder members played together (rated games over ARENA_LADDER_GAMES), pending included."""
    ladder = BotVersion.objects.on_ladder().filter(bot__game=game).values("pk")
    played = PairResult.objects.filter(game=game, first__in=ladder, second__in=ladder).values_list(
        "first_id", "second_id", F("first_wins") + F("second_wins") + F("draws")
    )
    met: dict[tuple[Hashable, Hashable], float] = {
        (first, second): games / settings.ARENA_LADDER_GAMES for first, second, games in played
    }
    for a, b in pending:
        key = pairing.pair_key(a, b)
        met[key] = met.get(key, 0.0) + 1.0
    return met


def _ladder_match(game: str) -> Match:
    return Match(
        kind=Match.Kind.LADDER,
        game=game,
        games=settings.ARENA_LADDER_GAMES,
        seed=seeds.random_seed(),
        duplicate=True,
        turn_seconds=settings.ARENA_TURN_SECONDS,
        bank_seconds=settings.ARENA_BANK_SECONDS,
        startup_seconds=settings.ARENA_STARTUP_SECONDS,
        rated=True,
    )


def schedule(game: str) -> list[Match]:
    """Queue ladder matches while fewer than ARENA_LADDER_MAX_PENDING are waiting or running."""
    with transaction.atomic():
        _lock(game)
        pending = _pending_pairs(game)
        room = settings.ARENA_LADDER_MAX_PENDING - len(pending)
        if room <= 0:
            return []
        ladder = members(game)
        ratings = {
            pk: (elo, low, high, games)
            for pk, elo, low, high, games in Rating.objects.filter(version__in=ladder).values_list(
                "version_id", "elo", "low", "high", "games"
            )
        }
        met = _met(game, pending)
        playing = Counter(pk for pair in pending for pk in pair)
        rng = np.random.default_rng()
        planned = []
        # A version being placed may take a further match in each round; the others play one at a time.
        for _round in range(settings.ARENA_LADDER_PLACEMENT_PARALLEL):
            busy = {version.pk for version in ladder if playing[version.pk] >= _parallel(version, ratings)}
            pairs = pair(ladder, ratings, met, room - len(planned), rng, busy)
            if not pairs:
                break
            for first, second in pairs:
                planned.append((_ladder_match(game), [first, second]))
                playing.update([first.pk, second.pk])
                key = pairing.pair_key(first.pk, second.pk)
                met[key] = met.get(key, 0.0) + 1.0
        queued = Match.objects.bulk_create_with_entries(planned)
        for match in queued:
            queue.play_match(match.pk)
    return queued


def _parallel(version: BotVersion, ratings: dict[int, tuple[float, float, float, int]]) -> int:
    """How many ladder matches the version may play at once: more while it is being placed."""
    if version.kind == BotVersion.Kind.HOUSE:
        return 1
    games = ratings[version.pk][3] if version.pk in ratings else 0
    placing = games / settings.ARENA_LADDER_GAMES < settings.ARENA_LADDER_PLACEMENT_MATCHES
    return settings.ARENA_LADDER_PLACEMENT_PARALLEL if placing else 1


def schedule_all() -> int:
    return sum(len(schedule(game)) for game in sorted(COMPETITIVE_GAMES))


@receiver(signals.leaderboard_changed)
def _fill_freed_places(sender: object, game: str, **kwargs: object) -> None:
    """A refit stored new ratings (a match's place is free again) or the ladder's members changed: schedule now."""
    if game in COMPETITIVE_GAMES and settings.ARENA_LADDER_MAX_PENDING > 0:
        queue.schedule_ladder(game)
