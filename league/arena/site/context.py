"""What every page's template knows: the site's name, the games, and the signed-in user's unread notifications."""

from django.conf import settings
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from league.arena.models import GAME_CHOICES
from league.arena.notifications import inbox


def site(request: HttpRequest) -> dict:
    context = {"site_name": settings.SITE_NAME, "game_choices": GAME_CHOICES}
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        # Counted only when a template shows it (the navigation), not for a fragment or a redirect.
        context["unread_notifications"] = SimpleLazyObject(lambda: inbox.unread_count(user.pk))
    return context
