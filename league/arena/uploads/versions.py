"""What an owner can do with one of their versions after uploading it: download it, prune it, or validate it again.

Pruning deletes the upload and keeps everything else (the version row, its hash, its games, whose logs replay
without the code), so the version stops counting towards its owner's quotas. Revalidating queues a fresh
validation match for a version whose validation the server itself could not run.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.http import HttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header

from league.arena.models import Bot, BotUpload, BotVersion, Match, Tournament
from league.arena.uploads import validation as validations


class NotAllowed(ValueError):
    """The action does not apply to this version now; the message says why, for its owner."""


CONTENT_TYPES = {BotVersion.Kind.PY: "text/x-python; charset=utf-8", BotVersion.Kind.ZIP: "application/zip"}


@dataclass(frozen=True)
class Download:
    filename: str
    content_type: str
    content: bytes

    def as_attachment(self) -> HttpResponse:
        """The file as a response that browsers save under its uploaded name."""
        response = HttpResponse(self.content, content_type=self.content_type)
        response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=self.filename)
        return response


def download(version: BotVersion) -> Download:
    """The version's upload as it was sent (NotAllowed for a house bot or a pruned version). Who may have it (the
    owner and staff) is the caller's check: the site's view and the API's."""
    upload = BotUpload.objects.filter(version=version).first()
    if upload is None:
        if version.kind == BotVersion.Kind.HOUSE:
            raise NotAllowed(f"{version} is a house bot: it has no uploaded file")
        raise NotAllowed(f"{version} was pruned: its upload is deleted")
    filename = version.filename or f"bot.{version.kind}"
    return Download(filename, CONTENT_TYPES.get(version.kind, "application/octet-stream"), bytes(upload.content))


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


def staff_revalidation_refusal(version: BotVersion) -> str | None:
    """Why staff cannot validate the version again, or None: any failed upload that is still kept can be."""
    if version.status != BotVersion.Status.FAILED:
        return f"{version} is {version.get_status_display()}, not failed"
    if version.pruned_at is not None:
        return f"{version} is pruned: its upload is gone"
    return None


@transaction.atomic
def revalidate(version: BotVersion, by_staff: bool = False) -> None:
    """Validate again a failed version (a fresh validation match); NotAllowed otherwise.

    Its owner may do so when the server could not run the validation games; staff may for any failed version
    whose upload is kept (after the validation rules or the house opponent changed, say).
    """
    BotVersion.objects.select_for_update().filter(pk=version.pk).get()
    version.refresh_from_db()
    if by_staff:
        refusal = staff_revalidation_refusal(version)
        if refusal:
            raise NotAllowed(refusal)
    elif not failed_on_server(version):
        raise NotAllowed(
            f"{version.label} can be validated again only when the server could not run its validation games"
        )
    BotVersion.objects.filter(pk=version.pk).update(
        status=BotVersion.Status.VALIDATING, failure_reason="", stderr_tail="", validated_at=None
    )
    version.refresh_from_db()
    validations.release(version.bot.owner_id)  # now, or once the owner's earlier validations finish
