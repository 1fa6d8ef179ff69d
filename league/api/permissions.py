"""Who may see and change what: the site's rules, stated once for the API.

Public data is readable by anyone. A bot is changed only by its owner. A version's private details (its
failure reason, stderr tail, validation match) and its source are for the owner and staff. A validation
match, whose details may quote the candidate's errors, is visible only to the candidate's owner and staff.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from league.arena.lib import caching
from league.arena.models import Bot, Match, MatchEntry


def visible_matches(user: Any, matches: QuerySet[Match]) -> QuerySet[Match]:
    """`matches` without the validation matches `user` may not see (as `_require_visible` on the site)."""
    if user.is_authenticated and user.is_staff:
        return matches
    public = ~Q(kind=Match.Kind.VALIDATION)
    if not user.is_authenticated:
        return matches.filter(public)
    # The user's own validation matches as constant ids (one per uploaded version): an OR with a correlated
    # subquery would make PostgreSQL test every match of the league.
    return matches.filter(public | Q(pk__in=own_validation_matches(user.pk)))


def own_validation_matches(user_id: int) -> list[int]:
    """The ids of the validation matches of the user's versions, kept in the page cache.

    Finding them walks every entry of the user's versions (10 ms for an owner of thousands of matches), on every
    list of matches they ask for. The list is kept in the user's scope (`caching.own_validations_scope`), which
    `validations.queue_validation` makes stale once a new validation match of theirs is committed.
    """
    own = MatchEntry.objects.filter(index=0, version__bot__owner_id=user_id, match__kind=Match.Kind.VALIDATION)
    return caching.fragment(
        f"api-own-validations:{user_id}",
        caching.own_validations_scope(user_id),
        lambda: list(own.values_list("match_id", flat=True)),
    )


class IsBotOwnerOrReadOnly(BasePermission):
    """Anyone reads; only the bot's owner writes (staff included: they act through the admin)."""

    message = "only the bot's owner can change it"

    def has_object_permission(self, request: Request, view: Any, obj: Bot) -> bool:
        return request.method in SAFE_METHODS or obj.owner_id == request.user.pk
