"""A bot's worst turns: the mistakes and blunders its analysed games found, costliest first (the bot's page)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from bots.analysis.marks import points_per_card
from league.arena.analysis.requests import current_key
from league.arena.models import Bot, GameAnalysis

ANALYSES_READ = 200  # the newest analysed games of the bot that are looked through


def worst(bot: Bot, count: int = 5) -> list[dict[str, Any]]:
    """Up to `count` of the bot's marked turns, costliest first: turn, mark, what it cost (`points` of win probability
    and, where the game counts them, `cards` more expected left at the end; `by_cards` when the cards cost more,
    at the marks' exchange rate), the game and a link to the replay at that turn. Only analyses by today's engine
    count: an older one's marks may not be today's."""
    rows = (
        GameAnalysis.objects.filter(status=GameAnalysis.Status.DONE, game__seats__version__bot=bot, **current_key())
        .exclude(marked=[])
        .order_by("-game_id")
        .values_list("game_id", "game__game", "game__seats__seat", "marked")[:ANALYSES_READ]
    )
    found = [
        _described(game_id, kind, turn)
        for game_id, kind, seat, marked in rows
        for turn in marked
        if turn["seat"] == seat
    ]
    found.sort(key=lambda item: (-item["cost"], -item["game"], item["turn"]))
    return found[:count]


def cache_name(bot: Bot) -> str:
    """The page cache's name for `worst(bot)`: an engine change (current_key) makes other analyses today's."""
    return f"bot-blunders:{bot.pk}:{current_key()['engine']}"


def _described(game_id: int, kind: str, turn: dict[str, Any]) -> dict[str, Any]:
    points = round(100 * turn["loss"], 1)
    cards = turn.get("cards_loss")
    in_points = points if cards is None else max(points, cards * points_per_card(kind))
    return {
        "game": game_id,
        "turn": turn["turn"],
        "mark": turn["mark"],
        "points": points,
        "cards": None if cards is None else round(cards, 1),
        "by_cards": in_points > points,
        "cost": in_points,
        "url": f"{reverse('game', args=[game_id])}#turn={turn['turn']}",
    }
