"""The house bots that ship with the runner, as ladder members owned by the user "house"."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from bots.house import HOUSE_BOTS, parse_ref, versions
from league.arena.models import GAME_CHOICES, Bot, BotVersion

HOUSE_USER = "house"


def house_sha256(name: str) -> str:
    """The hash over every module the house bot loads, so a change to any of them makes a new version."""
    return versions.house_version(name).removeprefix("sha256:")


def _house_bot_name(name: str, game: str) -> str:
    return name if game == "face-to-face" else f"{name}-{game}"


def house_version(ref: str, game: str = "face-to-face") -> BotVersion:
    """The current version of the house bot `ref` (e.g. "house:greedy") for `game`, created on first use."""
    name = parse_ref(ref)  # UnknownHouseBot is a ValueError
    owner, _ = get_user_model().objects.get_or_create(username=HOUSE_USER, defaults={"is_active": False})
    sha = house_sha256(name)
    for _attempt in range(2):  # a concurrent first use may create the same rows: then read theirs
        try:
            with transaction.atomic():
                bot, _ = Bot.objects.get_or_create(
                    owner=owner,
                    name=_house_bot_name(name, game),
                    defaults={"game": game, "house_ref": ref, "description": f"The house bot {ref}."},
                )
                version = bot.versions.filter(sha256=sha).first()
                if version is None:
                    version = BotVersion.objects.create(
                        bot=bot,
                        number=bot.next_version_number(),
                        sha256=sha,
                        kind=BotVersion.Kind.HOUSE,
                        filename=ref,
                        status=BotVersion.Status.ACTIVE,
                    )
                    bot.refresh_active_version()
                return version
        except IntegrityError:
            continue
    raise RuntimeError(f"could not register the house bot {ref}")


def ensure_house_bots() -> list[BotVersion]:
    """Every house bot, for every game, as an active ladder member."""
    return [house_version(f"house:{name}", game) for game, _ in GAME_CHOICES for name in sorted(HOUSE_BOTS)]
