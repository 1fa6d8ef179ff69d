"""Pause for forfeits: a ladder version that forfeits more than ARENA_FORFEIT_PAUSE_SHARE of its recent ladder games
leaves the ladder (the bot is paused, nothing is deleted) and its owner is told why, linking to the games.

Judged after every stored ladder match (Face to Face or a co-op season's) of a version that has ever forfeited a
game (one that never did is under any share), over its last
ARENA_FORFEIT_PAUSE_GAMES ladder games, once it has played ARENA_FORFEIT_PAUSE_MIN_GAMES of them since it became the
bot's ladder version or its owner last resumed it. The owner resumes the bot on its page (`resume`: forfeits are
counted afresh from then) or uploads a fix: a new version that passes validation ends the pause
(`Bot.refresh_active_version`). House bots are never paused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone

from league.arena import notifications
from league.arena.lib import signals
from league.arena.models import FORFEITS, Bot, BotVersion, ForfeitCount, Game, GameSeat, Match
from league.arena.play import events

EXAMPLES = 5  # forfeited games linked from the bot page's pause notice


@dataclass
class Record:
    """A version's recent ladder games as the pause rule counts them."""

    games: int
    forfeits: list[Game]  # newest first

    def kinds(self) -> Counter:
        return Counter(game.termination for game in self.forfeits)


def recent_record(version: BotVersion, since: Any = None) -> Record:
    """The version's last ARENA_FORFEIT_PAUSE_GAMES ladder games (played after `since`, if given) and which of them
    it forfeited (the game's fault seat is one of its seats: a co-op team of one version holds several).

    Judged after every stored ladder match, so each step is bounded by the window, not by the version's history:
    the window's game ids walk the version's (version, game) seat index backwards, then its forfeits are read."""
    seats = GameSeat.objects.filter(version=version, game__match__kind=Match.Kind.LADDER)
    if since is not None:
        seats = seats.filter(game__played_at__gt=since)
    window = list(
        seats.order_by("-game_id").values_list("game_id", flat=True).distinct()[: settings.ARENA_FORFEIT_PAUSE_GAMES]
    )
    at_fault = GameSeat.objects.filter(game=OuterRef("pk"), seat=OuterRef("fault_seat"), version=version)
    forfeited = Game.objects.filter(pk__in=window, termination__in=list(FORFEITS)).filter(Exists(at_fault))
    forfeits = list(forfeited.defer("log_zlib").order_by("-pk")) if window else []
    return Record(len(window), forfeits)


def recent_counts(version: BotVersion, since: Any = None) -> tuple[int, int]:
    """What `recent_record` counts (its games, its forfeits), in one statement of fixed text: the rule runs it for both
    versions of every stored ladder match, where building the ORM's queries cost more CPU than running them."""
    seat, game, match = GameSeat._meta.db_table, Game._meta.db_table, Match._meta.db_table
    kinds = sorted(FORFEITS)
    played_after = " AND w.played_at > %s" if since is not None else ""
    sql = (
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN g.termination IN ({kinds}) AND EXISTS (SELECT 1 FROM {seat} f "
        "WHERE f.game_id = g.id AND f.seat = g.fault_seat AND f.version_id = %s) THEN 1 ELSE 0 END), 0) "
        "FROM (SELECT DISTINCT s.game_id FROM {seat} s JOIN {game} w ON w.id = s.game_id "
        "JOIN {match} m ON m.id = w.match_id WHERE s.version_id = %s AND m.kind = %s{played_after} "
        "ORDER BY s.game_id DESC LIMIT %s) AS recent JOIN {game} g ON g.id = recent.game_id"
    ).format(kinds=", ".join(["%s"] * len(kinds)), seat=seat, game=game, match=match, played_after=played_after)
    params: list[Any] = [*kinds, version.pk, version.pk, Match.Kind.LADDER]
    if since is not None:
        params.append(connection.ops.adapt_datetimefield_value(since))
    params.append(settings.ARENA_FORFEIT_PAUSE_GAMES)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        games, forfeited = cursor.fetchone()
    return int(games), int(forfeited)


def reason_for(version: BotVersion, record: Record) -> str:
    kinds = ", ".join(f"{kind} {count}" for kind, count in record.kinds().most_common())
    return (
        f"{version.label} forfeited {len(record.forfeits)} of its last {record.games} ladder games ({kinds}), "
        f"more than the {settings.ARENA_FORFEIT_PAUSE_SHARE:.0%} the ladder allows"
    )


def judge(version: BotVersion) -> bool:
    """Pause the version's bot if it forfeits too often on the ladder; True when this call paused it."""
    bot = version.bot
    if version.kind == BotVersion.Kind.HOUSE or bot.paused_at is not None or bot.active_version_id != version.pk:
        return False
    games, forfeited = recent_counts(version, since=bot.resumed_at)
    if games < settings.ARENA_FORFEIT_PAUSE_MIN_GAMES or forfeited <= settings.ARENA_FORFEIT_PAUSE_SHARE * games:
        return False
    reason = reason_for(version, recent_record(version, since=bot.resumed_at))
    paused = Bot.objects.filter(pk=bot.pk, paused_at__isnull=True, active_version=version).update(
        paused_at=timezone.now(), paused_reason=reason[:300]
    )
    if not paused:
        return False
    bot.refresh_from_db(fields=["paused_at", "paused_reason"])
    _withdraw_queued(version)
    signals.send_leaderboard_changed(bot.game)
    text = f"{bot.name} was paused and left the ladder: {reason}. Resume it on its page, or upload a fix."
    url = reverse("bot", args=[bot.pk]) + "#paused"
    notifications.notify(bot.owner_id, notifications.Kind.BOT_PAUSED, text, url, key=f"paused:{bot.pk}:{version.pk}")
    return True


def _withdraw_queued(version: BotVersion) -> None:
    """The paused version's ladder matches not started yet are dropped (a running one finishes)."""
    queued = Match.objects.filter(kind=Match.Kind.LADDER, status=Match.Status.QUEUED, entries__version=version)
    ids = list(Match.objects.select_for_update().filter(pk__in=queued.values("pk")).values_list("pk", flat=True))
    Match.objects.filter(pk__in=ids, status=Match.Status.QUEUED).delete()


@transaction.atomic
def resume(bot: Bot) -> bool:
    """The owner puts a paused bot back on the ladder; its forfeits are counted afresh. False if it was not paused."""
    now = timezone.now()
    back = Bot.objects.filter(pk=bot.pk, paused_at__isnull=False).update(
        paused_at=None, paused_reason="", resumed_at=now
    )
    bot.refresh_from_db(fields=["paused_at", "paused_reason", "resumed_at"])
    if back:
        signals.send_leaderboard_changed(bot.game)
    return bool(back)


def examples(bot: Bot) -> list[Game]:
    """The paused bot's newest forfeited ladder games, for the links beside its pause notice."""
    if bot.paused_at is None or bot.active_version_id is None:
        return []
    return recent_record(bot.active_version, since=bot.resumed_at).forfeits[:EXAMPLES]


def ever_forfeited(versions: list[BotVersion]) -> list[BotVersion]:
    """Those of `versions` that have forfeited a game but a validation (a `ForfeitCount` row, kept on store in the
    transaction that stored the match being judged, so this match's forfeits are among them)."""
    counted = set(ForfeitCount.objects.filter(version__in=versions).values_list("version_id", flat=True))
    return [version for version in versions if version.pk in counted]


@receiver(events.match_stored)
def _judge_ladder_match(sender: object, match: Match, versions: list[BotVersion], **kwargs: object) -> None:
    if match.kind != Match.Kind.LADDER or match.tournament_id:
        return
    # A version that never forfeited is under any share, so only the others are judged (the rule reads their window
    # of games): about a third of storing a match's database time at 1,000 bots, where most bots never forfeit.
    for version in ever_forfeited(list({version.pk: version for version in versions}.values())):
        judge(version)
