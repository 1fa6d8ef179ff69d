"""What an owner can do with one of their versions after uploading it: prune it, or validate it again.

Pruning deletes the upload and keeps everything else (the version row, its hash, its games, whose logs replay
without the code), so the version stops counting towards its owner's quotas. Revalidating queues a fresh
validation match for a version whose validation the server itself could not run.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from league.arena import validations
from league.arena.models import Bot, BotUpload, BotVersion, Match, Tournament


class NotAllowed(ValueError):
    """The action does not apply to this version now; the message says why, for its owner."""


def _unfinished(version: BotVersion) -> Q:
    return Q(entries__version=version, status__in=[Match.Status.QUEUED, Match.Status.RUNNING])


def prune_refusal(version: BotVersion) -> str | None:
    """Why the version cannot be pruned now, or None when it can."""
    if version.pruned_at is not None:
        return f"{version.label} is already pruned"
    if version.kind == BotVersion.Kind.HOUSE:
        return "house bots cannot be pruned"
    if version.status == BotVersion.Status.VALIDATING:
        return f"{version.label} is still being validated"
    if version.bot.active_version_id == version.pk:
        return f"{version.label} is the bot's ladder version; upload a newer one first"
    in_tournament = version.tournament_entries.exclude(tournament__status=Tournament.Status.FINISHED)
    if in_tournament.exists():
        return f"{version.label} plays in a tournament that has not finished"
    if Match.objects.filter(_unfinished(version)).exists():
        return f"{version.label} has matches still to play"
    return None


@transaction.atomic
def prune(version: BotVersion) -> None:
    """Delete the version's upload (NotAllowed when it may still be played); its games stay replayable."""
    # The bot's lock keeps the ladder version from changing under the check (mark_validated moves it).
    Bot.objects.select_for_update().filter(pk=version.bot_id).get()
    version.refresh_from_db()
    version.bot.refresh_from_db(fields=["active_version"])
    refusal = prune_refusal(version)
    if refusal:
        raise NotAllowed(refusal)
    BotUpload.objects.filter(version=version).delete()
    version.pruned_at = timezone.now()
    version.save(update_fields=["pruned_at"])


def failed_on_server(version: BotVersion) -> bool:
    """True when the version failed because its validation match could not be run (not for anything it did)."""
    if version.status != BotVersion.Status.FAILED or version.pruned_at is not None:
        return False
    newest = (
        Match.objects.filter(kind=Match.Kind.VALIDATION, entries__version=version, entries__index=0)
        .order_by("-pk")
        .values_list("status", flat=True)
        .first()
    )
    return newest == Match.Status.FAILED


@transaction.atomic
def revalidate(version: BotVersion) -> None:
    """Validate again a version that failed for a server reason (a fresh validation match); NotAllowed otherwise."""
    BotVersion.objects.select_for_update().filter(pk=version.pk).get()
    version.refresh_from_db()
    if not failed_on_server(version):
        raise NotAllowed(
            f"{version.label} can be validated again only when the server could not run its validation games"
        )
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersion.Status.VALIDATING, failure_reason="", stderr_tail="", validated_at=None
    )
    version.refresh_from_db()
    validations.release(version.bot.owner_id)  # now, or once the owner's earlier validations finish
