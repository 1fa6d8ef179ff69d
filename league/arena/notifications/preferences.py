"""How a user wants to hear of each kind of notification: on the site and by e-mail, on the site only, or not at
all. Only choices that differ from a kind's default are stored (`NotificationSetting`)."""

from __future__ import annotations

from django.conf import settings

from league.arena.models import Notification, NotificationSetting

Kind = Notification.Kind
Delivery = NotificationSetting.Delivery

# What a user who never chose gets: e-mail for what needs them to act or what they waited long for; the site only
# for what they usually watch happen (a validation takes seconds, a scrim or an analysis they just asked for).
DEFAULTS: dict[str, str] = {
    Kind.VERSION_VALIDATED: Delivery.SITE,
    Kind.VERSION_FAILED: Delivery.EMAIL,
    Kind.BOT_PAUSED: Delivery.EMAIL,
    Kind.SCRIM_FINISHED: Delivery.SITE,
    Kind.TOURNAMENT_FINISHED: Delivery.EMAIL,
    Kind.TEST_VERDICT: Delivery.EMAIL,
    Kind.ANALYSIS_FINISHED: Delivery.SITE,
}


def email_configured() -> bool:
    """The server sends e-mail only when an SMTP server is set (EMAIL_HOST); without one, nothing is e-mailed."""
    return bool(settings.EMAIL_HOST)


def delivery(user_id: int, kind: str) -> str:
    """How `kind` reaches the user: a `Delivery` value (one query)."""
    chosen = NotificationSetting.objects.filter(user_id=user_id, kind=kind).values_list("delivery", flat=True).first()
    return chosen or DEFAULTS[kind]


def choices(user_id: int) -> dict[str, str]:
    """Every kind's delivery for the user, in the order kinds are listed (one query)."""
    chosen = dict(NotificationSetting.objects.filter(user_id=user_id).values_list("kind", "delivery"))
    return {kind: chosen.get(kind, DEFAULTS[kind]) for kind in Kind.values}


def save(user_id: int, chosen: dict[str, str]) -> None:
    """Keep the user's choices: a choice equal to the kind's default is stored as no row at all."""
    unknown = set(chosen) - set(Kind.values)
    if unknown:
        raise ValueError(f"no such kind of notification: {', '.join(sorted(unknown))}")
    wrong = {kind: value for kind, value in chosen.items() if value not in Delivery.values}
    if wrong:
        raise ValueError(f"a delivery is one of {', '.join(Delivery.values)}; got {wrong}")
    for kind, value in chosen.items():
        if value == DEFAULTS[kind]:
            NotificationSetting.objects.filter(user_id=user_id, kind=kind).delete()
        else:
            NotificationSetting.objects.update_or_create(user_id=user_id, kind=kind, defaults={"delivery": value})
