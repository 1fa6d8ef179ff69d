"""A version test's life: started within its owner's quotas, played in batches, decided by the SPRT, or cancelled.

`start` checks and records a test; nothing is queued yet. `release` puts the next batches of every running test on
the test queue while the league has no ladder, tournament or validation match waiting (Redis does not prioritise
one queue over another, so the order is kept here, as for scrims, which in turn wait behind tests). Each test keeps
up to ARENA_TEST_IN_FLIGHT batches queued or running, so several workers share it; a batch is one match
(Face to Face: a duplicate match of `batch_pairs` pairs, NEW in entry 0) or two on the same deals (co-op: NEW's team,
then BASE's), each claimed like any other match.

When a batch's match is stored, `fold` (in the same transaction, the test's row locked) adds the batch's counts,
recomputes the LLR with bots.sprt and writes them with an UPDATE guarded by the number of folded batches; a test
that crossed a bound, or played its cap, is done, its queued batches are withdrawn and its owner is told.
The games are stored like any other (replayable) but unrated: they never reach the ratings.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Case, Q, QuerySet, Value, When
from django.dispatch import receiver
from django.utils import timezone

from bots.sprt import SPRT, Counts, Status
from bots.sprt.counts import PENTANOMIAL, TRINOMIAL, deal_class
from bots.sprt.play import face_to_face_counts
from league.arena import notifications, queue
from league.arena.lib import quotas, seeds
from league.arena.models import (
    COOP_GAMES,
    FACE_TO_FACE,
    GAME_NAMES,
    Bot,
    BotVersion,
    Game,
    Match,
    ScheduleLock,
    VersionTest,
)
from league.arena.play import events

WAITING_KINDS = [Match.Kind.LADDER, Match.Kind.TOURNAMENT, Match.Kind.VALIDATION]  # the work tests wait behind
PENDING = [Match.Status.QUEUED, Match.Status.RUNNING]
ACTIVE = [VersionTest.Status.QUEUED, VersionTest.Status.RUNNING]
LOCK = "version-tests"  # the ScheduleLock row one releaser at a time holds
BUSY_RETRY_SECONDS = 60  # Retry-After when the tests-at-once quota is full: a test takes minutes


class TestRefused(Exception):
    """A test that cannot be started; the message says why, in words for its owner."""


class QuotaExceeded(TestRefused, quotas.OverQuota):
    """Past a quota (tests at once, games a day); `retry_at` is when another test may start."""


# --- Who may be tested against whom --------------------------------------------------------------------------------


def playable_versions() -> QuerySet[BotVersion]:
    """Versions that can play a test: validated, their upload kept, their bot not disabled by the staff."""
    allowed = Bot.objects.allowed().values("pk")
    return BotVersion.objects.filter(status=BotVersion.Status.ACTIVE, pruned_at__isnull=True, bot__in=allowed)


def bases(bot: Bot) -> QuerySet[BotVersion]:
    """What a version of `bot` may be tested against: its other playable versions, or the active version of any other
    bot of its game on the ladder; the bot's own versions first, newest first."""
    others = Bot.objects.on_ladder().filter(game=bot.game).exclude(pk=bot.pk).values("active_version")
    return (
        playable_versions()
        .filter(Q(bot=bot) | Q(pk__in=others))
        .select_related("bot__owner")
        .annotate(other_bot=Case(When(bot=bot, then=Value(0)), default=Value(1)))
        .order_by("other_bot", "bot__owner__username", "bot__name", "-number")
    )


def design(test: VersionTest) -> SPRT:
    return SPRT(elo0=test.elo0, elo1=test.elo1, alpha=test.alpha, beta=test.beta, elo_model=test.elo_model)


def kind_of(game: str) -> str:
    return PENTANOMIAL if game == FACE_TO_FACE else TRINOMIAL


def status_of(test: VersionTest) -> Status:
    """The test's statistics, recomputed from its stored counts."""
    counts = Counts.of(test.counts) if test.counts else Counts.zeros(kind_of(test.game))
    return Status.of(design(test), counts)


def names(test: VersionTest) -> tuple[str, str]:
    """NEW and BASE as the verdict names them: "v7" and "v6" within one bot, full names across bots."""
    if test.base_bot_id == test.bot_id:
        return test.version.label, test.base_version.label
    return f"{test.bot.full_name} {test.version.label}", f"{test.base_bot.full_name} {test.base_version.label}"


def sentence(test: VersionTest) -> str:
    """The verdict (or the state) in plain words, e.g. "v7 is stronger than v6: +23.0 ± 9.0 Elo after 1,840 games"."""
    new, base = names(test)
    status = status_of(test)
    words = (
        status.sentence(new, base, finished=test.finished)
        if status.counts.pairs
        else f"{new} against {base}: no games played yet"
    )
    if test.status == VersionTest.Status.CANCELLED:
        return f"cancelled: {words}"
    if test.status == VersionTest.Status.FAILED:
        return f"stopped: {test.error}"
    return words


# --- Starting a test -----------------------------------------------------------------------------------------------


def games_played_today(user_id: int, now: datetime | None = None) -> int:
    """Games of `user_id`'s tests put into matches in the last 24 hours (played, playing or queued)."""
    released = _test_matches(user_id).filter(status__in=[*PENDING, Match.Status.DONE])
    return quotas.used(released, now or timezone.now(), amount="games")


def _test_matches(user_id: int) -> QuerySet[Match]:
    return Match.objects.filter(kind=Match.Kind.TEST, version_test__owner_id=user_id)


def start(
    user: AbstractBaseUser,
    version: BotVersion,
    base_version: BotVersion,
    *,
    elo0: float = 0.0,
    elo1: float = 5.0,
    elo_model: str = VersionTest.Model.NORMALIZED,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int | None = None,
    players: int | None = None,
    public: bool = False,
) -> VersionTest:
    """Record `user`'s test of `version` (NEW) against `base_version` (BASE); its batches follow on commit.

    Raises TestRefused (QuotaExceeded for a quota) naming what is wrong; nothing is written then.
    """
    bot = version.bot
    if bot.owner_id != user.pk:
        raise TestRefused(f"only {bot.owner.username} can test versions of {bot.full_name}")
    if base_version.pk == version.pk:
        raise TestRefused("a version cannot be tested against itself; choose another version or bot")
    if base_version.bot.game != bot.game:
        raise TestRefused(f"{base_version} plays {GAME_NAMES[base_version.bot.game]}, not {GAME_NAMES[bot.game]}")
    try:
        sprt = SPRT(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, elo_model=elo_model)
    except ValueError as error:
        raise TestRefused(str(error)) from None
    cap = settings.ARENA_TEST_MAX_GAMES if max_games is None else max_games
    if not 2 <= cap <= settings.ARENA_TEST_MAX_GAMES:
        raise TestRefused(f"the game cap is 2 to {settings.ARENA_TEST_MAX_GAMES} games, not {cap}")
    team = _team_size(bot.game, players)
    with transaction.atomic():
        # One start at a time per user, so two at once cannot both fit in the quotas' last places.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if not playable_versions().filter(pk=version.pk).exists():
            raise TestRefused(f"{version} cannot play: it is not validated, was pruned, or its bot was disabled")
        if not bases(bot).filter(pk=base_version.pk).exists():
            raise TestRefused(
                f"{base_version} cannot be a base: choose another version of {bot.full_name} or the active version "
                "of a bot on the ladder"
            )
        _check_quotas(user.pk)
        test = VersionTest.objects.create(
            owner_id=user.pk,
            bot=bot,
            version=version,
            base_bot=base_version.bot,
            base_version=base_version,
            game=bot.game,
            players=team,
            elo0=sprt.elo0,
            elo1=sprt.elo1,
            elo_model=str(sprt.elo_model),
            alpha=sprt.alpha,
            beta=sprt.beta,
            max_games=cap - cap % 2,
            batch_pairs=settings.ARENA_TEST_BATCH_PAIRS,
            seed=seeds.random_seed(),
            public=public,
            counts=list(Counts.zeros(kind_of(bot.game)).cells),
        )
        queue.release_tests()
    return test


def _team_size(game: str, players: int | None) -> int:
    if game not in COOP_GAMES:
        if players not in (None, 2):
            raise TestRefused(f"{GAME_NAMES[game]} is played by 2, not {players}")
        return 2
    team = 1 if players is None else players
    if team not in settings.ARENA_COOP_TEAM_SIZES:
        sizes = ", ".join(str(size) for size in settings.ARENA_COOP_TEAM_SIZES)
        raise TestRefused(f"a co-op test's team has {sizes} players, not {team}")
    return team


def _check_quotas(user_id: int) -> None:
    now = timezone.now()
    at_once = settings.ARENA_TESTS_AT_ONCE
    running = VersionTest.objects.filter(owner_id=user_id, status__in=ACTIVE).count()
    if running >= at_once:
        raise QuotaExceeded(
            f"you may run {at_once} test{'s' if at_once != 1 else ''} at once and have {running} running: "
            "wait for a verdict or cancel one",
            now + timedelta(seconds=BUSY_RETRY_SECONDS),
        )
    per_day = settings.ARENA_TEST_GAMES_PER_DAY
    played = games_played_today(user_id, now)
    quotas.check(
        per_day,
        played,
        1,
        _test_matches(user_id),
        now,
        lambda retry_at: QuotaExceeded(
            f"your tests may play {per_day:,} games in 24 hours and have played {played:,} "
            f"(more from {retry_at:%Y-%m-%d %H:%M} UTC)",
            retry_at,
        ),
    )


# --- Releasing batches ---------------------------------------------------------------------------------------------


def backlog() -> int:
    """Ladder, tournament and validation matches waiting for a worker: while they wait, tests do too."""
    return Match.objects.filter(kind__in=WAITING_KINDS, status=Match.Status.QUEUED).count()


def matches_per_batch(test: VersionTest) -> int:
    return 1 if test.game == FACE_TO_FACE else 2


def release() -> list[Match]:
    """Put the next batches of the running tests on the test queue if the league has room; the matches queued."""
    with transaction.atomic():
        ScheduleLock.objects.get_or_create(game=LOCK)
        ScheduleLock.objects.select_for_update().get(game=LOCK)
        if backlog() > settings.ARENA_TEST_MAX_BACKLOG:
            return []
        queued: list[Match] = []
        played_today: dict[int, int] = {}
        active = VersionTest.objects.filter(status__in=ACTIVE).select_related("version", "base_version")
        for test in active.order_by("created", "pk"):
            if test.owner_id not in played_today:
                played_today[test.owner_id] = games_played_today(test.owner_id)
            queued += _release_test(test, played_today)
    return queued


def _release_test(test: VersionTest, played_today: dict[int, int]) -> list[Match]:
    if not _still_playable(test):
        return []
    pending = Match.objects.filter(version_test=test, status__in=PENDING).count() // matches_per_batch(test)
    planned = []
    samples = test.max_games // 2
    first = test.released
    for _ in range(settings.ARENA_TEST_IN_FLIGHT - pending):
        size = min(test.batch_pairs, samples - first)
        if size <= 0 or played_today[test.owner_id] >= settings.ARENA_TEST_GAMES_PER_DAY:
            break
        planned += _batch(test, first, size)
        played_today[test.owner_id] += 2 * size
        first += size
    if not planned:
        return []
    queued = Match.objects.bulk_create_with_entries(planned)
    started = {"started_at": timezone.now(), "status": VersionTest.Status.RUNNING} if test.started_at is None else {}
    VersionTest.objects.filter(pk=test.pk, status__in=ACTIVE).update(released=first, **started)
    for match in queued:
        queue.play_test(match.pk)
    return queued


def _batch(test: VersionTest, first: int, size: int) -> list[tuple[Match, list[BotVersion]]]:
    """The matches that play samples first .. first + size - 1 (bots.sprt.play.Contest.specs, as matches)."""
    common = {
        "kind": Match.Kind.TEST,
        "game": test.game,
        "version_test": test,
        "seed": test.seed,
        "first_deal": first,
        "turn_seconds": settings.ARENA_TURN_SECONDS,
        "bank_seconds": settings.ARENA_BANK_SECONDS,
        "startup_seconds": settings.ARENA_STARTUP_SECONDS,
        "rated": False,
    }
    if test.game == FACE_TO_FACE:
        return [(Match(games=2 * size, duplicate=True, **common), [test.version, test.base_version])]
    return [
        (Match(games=size, players=test.players, duplicate=False, **common), [version])
        for version in (test.version, test.base_version)
    ]


def _unplayable(test: VersionTest) -> str | None:
    for version in (test.version, test.base_version):
        if not playable_versions().filter(pk=version.pk).exists():
            return f"{version} can no longer play (pruned, or its bot was disabled)"
    return None


def _still_playable(test: VersionTest) -> bool:
    """False (and the test failed, saying why, its owner told) once either version can no longer play."""
    refusal = _unplayable(test)
    if refusal:
        _finish(test.pk, VersionTest.Status.FAILED, error=refusal)
        return False
    return True


# --- Folding a stored batch in -------------------------------------------------------------------------------------


def batch_counts(test: VersionTest, match: Match, result: object) -> Counts | None:
    """The counts of the batch `match` completes, or None while its other half (co-op) is still to be stored."""
    if test.game == FACE_TO_FACE:
        return face_to_face_counts(result.games)
    halves = Match.objects.filter(version_test=test, first_deal=match.first_deal).order_by("pk")
    if halves.exclude(pk=match.pk).exclude(status=Match.Status.DONE).exists():
        return None
    new, base = (
        list(Game.objects.filter(match=half).order_by("index").values_list("score", flat=True)) for half in halves
    )
    counts = Counts.zeros(TRINOMIAL)
    for new_left, base_left in zip(new, base, strict=True):
        counts = counts.add(deal_class(new_left, base_left))
    return counts


def fold(match: Match, result: object) -> None:
    """Add a stored batch to its test's counts, recompute the LLR, and decide (in the storing transaction)."""
    test = VersionTest.objects.select_for_update().filter(pk=match.version_test_id).first()
    if test is None or test.status not in ACTIVE:
        return  # finished or cancelled: the counts are those its verdict was decided on
    added = batch_counts(test, match, result)
    if added is None:
        return
    status = Status.of(design(test), Counts.of(test.counts) + added)
    llr = status.llr if math.isfinite(status.llr) else 0.0
    folded = VersionTest.objects.filter(pk=test.pk, batches=test.batches, status__in=ACTIVE).update(
        counts=list(status.counts.cells),
        llr=llr,
        batches=test.batches + 1,
        history=[*test.history, [status.counts.games, round(llr, 4)]],
    )
    if folded != 1:
        raise RuntimeError(f"test {test.pk}: its batch count moved while its row was locked")
    others_pending = Match.objects.filter(version_test=test, status__in=PENDING).exists()
    if status.verdict is not None or (test.released >= test.max_games // 2 and not others_pending):
        _finish(test.pk, VersionTest.Status.DONE, verdict="" if status.verdict is None else str(status.verdict))
    else:
        queue.release_tests()  # the next batch, at once if the league has room


def _finish(test_id: int, state: str, verdict: str = "", error: str = "") -> bool:
    """End an active test (guarded: once), withdraw its queued batches and tell its owner."""
    now = timezone.now()
    ended = VersionTest.objects.filter(pk=test_id, status__in=ACTIVE).update(
        status=state, verdict=verdict, error=error, finished_at=now
    )
    if not ended:
        return False
    Match.objects.filter(version_test_id=test_id, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, finished_at=now
    )
    test = VersionTest.objects.select_related("bot", "version", "base_bot", "base_version").get(pk=test_id)
    if state != VersionTest.Status.CANCELLED:
        words = sentence(test)
        notifications.notify(
            test.owner_id,
            notifications.Kind.TEST_VERDICT,
            f"Version test {test.pk}: {words[0].upper()}{words[1:]}.",
            test.get_absolute_url(),
            key=f"version-test:{test.pk}",
        )
    return True


def cancel(user: AbstractBaseUser, test: VersionTest) -> bool:
    """Stop `user`'s test: no new batches, the queued ones withdrawn; False when it had already ended."""
    if test.owner_id != user.pk and not user.is_staff:
        raise TestRefused("only the test's owner can cancel it")
    with transaction.atomic():
        return _finish(test.pk, VersionTest.Status.CANCELLED)


@receiver(events.match_stored)
def _fold_after(sender: object, match: Match, result: object, **kwargs: object) -> None:
    if match.kind == Match.Kind.TEST and match.version_test_id:
        fold(match, result)


@receiver(events.match_failed)
def _fail_after(sender: object, match: Match, reason: str, **kwargs: object) -> None:
    if match.kind == Match.Kind.TEST and match.version_test_id:
        _finish(
            match.version_test_id,
            VersionTest.Status.FAILED,
            error="the server could not play one of its batches (it gave up after retrying)",
        )
