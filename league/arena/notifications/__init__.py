"""Owners are told: a notification centre on the site (unread count in the navigation, a list, mark read) and
e-mail where `EMAIL_HOST` is set, per user preferences.

Anything in the league that an owner should hear about calls one function:

    from league.arena import notifications
    notifications.notify(user, notifications.Kind.BOT_PAUSED, "cautious was paused: ...", "/bots/7/", key="...")

`notify` stores the notice in the caller's transaction (it is kept only if that commits) and sends its e-mail once it
has committed (delivery.py); `preferences.py` holds each kind's default and the user's choices; `inbox.py` reads and
marks a user's notices; `views.py` the pages.
"""

from league.arena.models import Notification
from league.arena.notifications.delivery import notify

Kind = Notification.Kind

__all__ = ["Kind", "notify"]
