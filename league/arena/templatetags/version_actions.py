"""`{% version_actions version is_owner sees_private %}`: the buttons for one row of a bot's versions table: the owner's
(download, prune, validate again), and the staff's (download)."""

from __future__ import annotations

from django import template

from league.arena.models import BotVersion
from league.arena.uploads import versions

register = template.Library()


@register.inclusion_tag("arena/_version_actions.html")
def version_actions(version: BotVersion, is_owner: bool, sees_private: bool = False) -> dict:
    # The owner and staff download an upload; a house bot has none, a pruned version's is deleted.
    download = (is_owner or sees_private) and version.pruned_at is None and version.kind != BotVersion.Kind.HOUSE
    if not is_owner:
        return {"shown": False, "download": download, "version": version}
    return {
        "shown": True,
        "download": download,
        "version": version,
        "can_revalidate": version.status == BotVersion.Status.FAILED and versions.failed_on_server(version),
        # Cheap checks only: the POST says plainly why a version that looks prunable is not.
        "can_prune": version.pruned_at is None
        and version.kind != BotVersion.Kind.HOUSE
        and version.status != BotVersion.Status.VALIDATING
        and version.bot.active_version_id != version.pk,
    }
