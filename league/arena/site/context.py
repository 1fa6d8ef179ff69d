from django.conf import settings
from django.http import HttpRequest

from league.arena.models import GAME_CHOICES


def site(request: HttpRequest) -> dict:
    return {"site_name": settings.SITE_NAME, "game_choices": GAME_CHOICES}
