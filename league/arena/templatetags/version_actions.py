"""`{% version_actions version is_owner %}`: the owner's buttons for one row of a bot's versions table."""

from __future__ import annotations

from django import template

from league.arena import versions
from league.arena.models import BotVersion

register = template.Library()


@register.inclusion_tag("arena/_version_actions.html")
def version_actions(version: BotVersion, is_owner: bool) -> dict:
    if not is_owner:
        return {"shown": False}
    return {
        "shown": True,
        "version": version,
        "can_revalidate": version.status == BotVersion.Status.FAILED and versions.failed_on_server(version),
        # Cheap checks only: the POST says plainly why a version that looks prunable is not.
        "can_prune": version.pruned_at is None
        and version.kind != BotVersion.Kind.HOUSE
        and version.status != BotVersion.Status.VALIDATING
        and version.bot.active_version_id != version.pk,
    }
