"""The co-op games' challenge ladders: seasons of published deals, and the matches that play them.

Every ladder bot of The Game or The Game Extreme plays every deal of its game's current season, alone and as a
self-play team of each of the season's team sizes (one sandboxed process per seat). A match plays one chunk of
`Season.chunk` consecutive deals (seed `Season.seed`, games from `Match.first_deal`), so results arrive steadily
and a dead worker loses little. Results are folded into the season's aggregates by `league.arena.coop.results`.

A chunk is planned once per version and team size: a new version of a bot starts the season's deals afresh. A chunk
whose match failed for good (the runner broke on every attempt) is planned again by a later scheduling, until it
has failed ARENA_MATCH_MAX_ATTEMPTS matches; then its deals stay missing, shown as deals played out of the season's.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from league.arena import queue
from league.arena.lib import seeds
from league.arena.models import COOP_GAMES, BotVersion, Match, ScheduleLock, Season
from league.arena.uploads.house import house_version

PENDING = [Match.Status.QUEUED, Match.Status.RUNNING]


def current_season(game: str) -> Season | None:
    return Season.objects.filter(game=game, current=True).first()


def start_season(
    game: str, deals: int = 1000, chunk: int = 100, team_sizes: list[int] | None = None, seed: str | None = None
) -> Season:
    """Open a new current season of `game` with fresh deals (see `open_season`)."""
    sizes = sorted(team_sizes) if team_sizes is not None else list(settings.ARENA_COOP_TEAM_SIZES)
    return open_season(Season(game=game, deals=deals, chunk=chunk, team_sizes=sizes, seed=seed or ""))


def open_season(season: Season) -> Season:
    """Save an unsaved season (game, deals, chunk, team sizes; a seed or a fresh random one) as its game's current
    season. The old season keeps its results; its matches not yet started are cancelled so the workers turn to the
    new deals."""
    game = season.game
    if game not in COOP_GAMES:
        raise ValueError(f"seasons are for the co-op games ({', '.join(COOP_GAMES)}), not {game!r}")
    with transaction.atomic():
        list(Season.objects.select_for_update().filter(game=game))  # one season start per game at a time
        season.number = (Season.objects.filter(game=game).aggregate(top=Max("number"))["top"] or 0) + 1
        season.seed = season.seed or seeds.random_seed()  # names nothing, like every match seed
        season.current = True
        season.started_at = timezone.now()
        season.full_clean(exclude=["current"])
        old = list(Season.objects.filter(game=game, current=True).values_list("seed", flat=True))
        Season.objects.filter(game=game, current=True).update(current=False)
        Match.objects.filter(kind=Match.Kind.LADDER, game=game, seed__in=old, status=Match.Status.QUEUED).update(
            status=Match.Status.FAILED, error=f"season ended: {season} started", finished_at=timezone.now()
        )
        season.save()
        house_version("house:expert", game)  # the yardstick is a permanent member of every co-op ladder
    return season


def members(game: str) -> list[BotVersion]:
    """The ladder version of every bot of this game that is on the ladder."""
    return list(BotVersion.objects.on_ladder().filter(bot__game=game).order_by("pk"))


def _lock(game: str) -> None:
    key = f"coop:{game}"
    ScheduleLock.objects.get_or_create(game=key)
    ScheduleLock.objects.select_for_update().get(game=key)


def chunk_starts(season: Season) -> list[int]:
    return list(range(0, season.deals, season.chunk))


def planned_chunks(season: Season) -> dict[tuple[int, int], set[int]]:
    """{(version id, team size): first deals of the chunks not to plan again}: those with a match queued, running
    or done, and those whose matches failed ARENA_MATCH_MAX_ATTEMPTS times."""
    planned: dict[tuple[int, int], set[int]] = defaultdict(set)
    failures: Counter[tuple[int, int, int]] = Counter()
    rows = Match.objects.filter(kind=Match.Kind.LADDER, game=season.game, seed=season.seed).values_list(
        "entries__version_id", "players", "first_deal", "status"
    )
    for version, players, first, status in rows:
        if status == Match.Status.FAILED:
            failures[version, players or 1, first] += 1
        else:
            planned[version, players or 1].add(first)
    for (version, players, first), failed in failures.items():
        if failed >= settings.ARENA_MATCH_MAX_ATTEMPTS:
            planned[version, players].add(first)
    return planned


def next_chunks(season: Season, versions: list[BotVersion], room: int) -> list[tuple[BotVersion, int, int]]:
    """Up to `room` (version, team size, first deal) to play next: the (version, size) with the fewest chunks
    first (a new version catches up before others go on), smaller teams before larger ones on a tie."""
    starts = chunk_starts(season)
    planned = planned_chunks(season)
    heap = []
    for version in versions:
        for players in season.team_sizes:
            done = planned.get((version.pk, players), set())
            missing = [first for first in starts if first not in done]
            if missing:
                heap.append((len(starts) - len(missing), players, version.pk, version, missing))
    heapq.heapify(heap)
    chosen = []
    while heap and len(chosen) < room:
        count, players, pk, version, missing = heapq.heappop(heap)
        chosen.append((version, players, missing[0]))
        if len(missing) > 1:
            heapq.heappush(heap, (count + 1, players, pk, version, missing[1:]))
    return chosen


def schedule(game: str) -> list[Match]:
    """Queue chunks of the current season while fewer than ARENA_COOP_MAX_PENDING are waiting or running."""
    with transaction.atomic():
        _lock(game)
        season = current_season(game)
        if season is None:
            return []
        room = settings.ARENA_COOP_MAX_PENDING - (
            Match.objects.filter(kind=Match.Kind.LADDER, game=game, status__in=PENDING).count()
        )
        if room <= 0:
            return []
        planned = [
            (
                Match(
                    kind=Match.Kind.LADDER,
                    game=game,
                    games=min(season.chunk, season.deals - first),
                    players=players,
                    seed=season.seed,
                    first_deal=first,
                    duplicate=False,
                    turn_seconds=settings.ARENA_TURN_SECONDS,
                    bank_seconds=settings.ARENA_BANK_SECONDS,
                    startup_seconds=settings.ARENA_STARTUP_SECONDS,
                    rated=True,
                ),
                [version],
            )
            for version, players, first in next_chunks(season, members(game), room)
        ]
        queued = Match.objects.bulk_create_with_entries(planned)
        for match in queued:
            queue.play_match(match.pk)
    return queued


def schedule_all() -> int:
    return sum(len(schedule(game)) for game in COOP_GAMES)
