"""What the one ladder rule (`Bot.objects.on_ladder()`: an active version, not retired, not disabled, the owner's
account active) costs the queries that list ladder bots, against the bare "has an active version" they used before.

Usage (a database of its own: it is filled with --bots bots, a tenth of them retired, disabled or of a disabled
account, if it does not hold them already):

    createdb -h 127.0.0.1 -U postgres arena_ladder_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_ladder_bench python3 -m bench.ladder_membership

Each query runs --runs times (the leaderboard's first page, the ladder scheduler's members, a bot page's rank);
it prints min / median / p95 milliseconds of each with the rule and without it, and the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from django.db.models import Count, F, OuterRef, Subquery  # noqa: E402
from django.utils import timezone  # noqa: E402

from league.arena.ladder import leaderboards, scheduling  # noqa: E402
from league.arena.models import FACE_TO_FACE, Bot, BotVersion, Rating  # noqa: E402

PREFIX = "ladder-bench"


def fill(bots: int) -> None:
    """`bots` Face to Face bots of bots/10 owners, each with an active rated version; a tenth kept off the ladder."""
    User = get_user_model()
    if Bot.objects.filter(name__startswith=PREFIX).count() >= bots:
        return
    with transaction.atomic():
        owners = User.objects.bulk_create(User(username=f"{PREFIX}-{k}") for k in range(max(1, bots // 10)))
        made = Bot.objects.bulk_create(
            Bot(owner=owners[k % len(owners)], name=f"{PREFIX}-{k}", game=FACE_TO_FACE) for k in range(bots)
        )
        versions = BotVersion.objects.bulk_create(
            BotVersion(
                bot=bot, number=1, sha256=hashlib.sha256(bot.name.encode()).hexdigest(), kind="py", status="active"
            )
            for bot in made
        )
        Rating.objects.bulk_create(
            Rating(version=v, game=FACE_TO_FACE, elo=1000 + (k * 7919) % 1000, low=0, high=0, games=10)
            for k, v in enumerate(versions)
        )
        Bot.objects.filter(pk__in=[b.pk for b in made]).update(
            active_version=Subquery(BotVersion.objects.filter(bot=OuterRef("pk")).values("pk")[:1])
        )
        now = timezone.now()
        Bot.objects.filter(pk__in=[b.pk for b in made[0::30]]).update(retired_at=now)
        Bot.objects.filter(pk__in=[b.pk for b in made[1::30]]).update(disabled_at=now)
        User.objects.filter(pk=owners[-1].pk).update(is_active=False)


def bare_ranked():
    return (
        Bot.objects.filter(game=FACE_TO_FACE, active_version__isnull=False)
        .select_related("owner", "active_version", "active_version__rating")
        .order_by(F("active_version__rating__elo").desc(nulls_last=True), "owner__username", "name", "pk")
    )


def bare_members() -> list:
    return list(BotVersion.objects.filter(active_for__game=FACE_TO_FACE).select_related("bot__owner").order_by("pk"))


def rank(ladder_versions) -> int:
    middle = Rating.objects.order_by("elo")[Rating.objects.count() // 2]
    higher = Rating.objects.filter(game=FACE_TO_FACE, elo__gt=middle.elo, version__in=ladder_versions)
    return higher.aggregate(n=Count("pk"))["n"]


def timed(run: Callable[[], object], runs: int) -> list[float]:
    run()
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        run()
        times.append(1000 * (time.perf_counter() - began))
    return times


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"min {ordered[0]:6.2f}  median {statistics.median(ordered):6.2f}  p95 {p95:6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    fill(args.bots)
    on, all_active = Bot.objects.on_ladder().count(), Bot.objects.filter(active_version__isnull=False).count()
    print(f"{all_active} bots with an active version, {on} of them on the ladder")
    print("clock: each query function's call in this process, wall time, its rows fetched (the first run not counted)")
    cases = [
        ("leaderboard page 1, the rule", lambda: leaderboards.leaderboard_page(FACE_TO_FACE, 1)),
        ("leaderboard page 1, bare", lambda: list(bare_ranked()[:50]) and bare_ranked().count()),
        ("scheduler members, the rule", lambda: scheduling.members(FACE_TO_FACE)),
        ("scheduler members, bare", bare_members),
        ("a bot's rank, the rule", lambda: rank(BotVersion.objects.on_ladder())),
        ("a bot's rank, bare", lambda: rank(BotVersion.objects.filter(active_for__isnull=False))),
    ]
    for name, run in cases:
        times = timed(run, args.runs)
        print(f"{name:32s} {summary(times)}   load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
