"""Owners who opt in (`Bot.analyse_losses`) have their bot's lost rated games analysed without asking: each such
game of a stored match is asked for in the owner's name, within the owner's daily limit (past it, the rest of the
day's losses are left for the owner to ask for)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.dispatch import receiver

from league.arena.analysis import requests
from league.arena.models import COMPETITIVE_GAMES, Bot, BotVersion, Game, GameSeat, Match
from league.arena.play import events

log = logging.getLogger(__name__)


def lost(game: Game, seat: GameSeat) -> bool:
    """Whether the seat lost the game: a loss in Face to Face, the team's failure to place every card in co-op."""
    if game.game in COMPETITIVE_GAMES:
        return seat.points == 0.0
    return bool(game.score)


def analyse_losses(match: Match, stored: Sequence[Game], versions: Sequence[BotVersion]) -> int:
    """Ask for the analysis of every game of `match` lost by a bot whose owner opted in; how many were asked for.

    `versions` are the match's, with their bots as loaded when the match was claimed: a match none of whose bots had
    opted in then costs no query (the rule runs after every stored match, and few owners opt in)."""
    if not match.rated or match.kind == Match.Kind.VALIDATION or not stored:
        return 0
    if not any(version.bot.analyse_losses for version in versions):
        return 0
    seats = (
        GameSeat.objects.filter(game__in=stored, version__bot__analyse_losses=True)
        .select_related("version__bot__owner")
        .order_by("game_id", "seat")
    )
    by_id = {game.pk: game for game in stored}
    asked = 0
    done: set[int] = set()
    for seat in seats:
        game = by_id[seat.game_id]
        if game.pk in done or not lost(game, seat):
            continue
        done.add(game.pk)
        bot: Bot = seat.version.bot
        try:
            _, queued = requests.ask(bot.owner, game, automatic=True)
        except requests.AnalysisRefused as refused:
            log.info("game %s of %s not analysed: %s", game.pk, bot.full_name, refused)
            continue
        asked += queued
    return asked


@receiver(events.match_stored)
def _analyse_after(
    sender: object, match: Match, games: Sequence[Game], versions: Sequence[BotVersion], **kwargs: object
) -> None:
    analyse_losses(match, games, versions)
