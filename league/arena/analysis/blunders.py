"""A bot's worst turns: the mistakes and blunders its analysed games found, costliest first (the bot's page)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from league.arena.models import Bot, GameAnalysis

ANALYSES_READ = 200  # the newest analysed games of the bot that are looked through


def worst(bot: Bot, count: int = 5) -> list[dict[str, Any]]:
    """Up to `count` of the bot's marked turns by the win probability they lost: turn, mark, loss (points), the
    game and a link to the replay at that turn."""
    rows = (
        GameAnalysis.objects.filter(status=GameAnalysis.Status.DONE, game__seats__version__bot=bot)
        .exclude(marked=[])
        .order_by("-game_id")
        .values_list("game_id", "game__seats__seat", "marked")[:ANALYSES_READ]
    )
    found = [
        {
            "game": game_id,
            "turn": turn["turn"],
            "mark": turn["mark"],
            "points": round(100 * turn["loss"], 1),
            "url": f"{reverse('game', args=[game_id])}#turn={turn['turn']}",
        }
        for game_id, seat, marked in rows
        for turn in marked
        if turn["seat"] == seat
    ]
    found.sort(key=lambda item: (-item["points"], -item["game"], item["turn"]))
    return found[:count]
