"""Ratings of the co-op challenge ladders: the duplicate comparisons of a season and team size, fitted with the
league's Bradley-Terry Elo, so both kinds of ladder speak the same Elo.

Each ladder (season, team size) goes through the same coalesced refit machinery as Face to Face
(`league.arena.ladder.refits`), under its own key `coop:<season id>:<team size>` (`Season.rating_key`), so a co-op refit
never claims, delays or overwrites Face to Face's. This module gives that machinery the ladder's pair rows and
writes its fitted ratings.
"""

from __future__ import annotations

from django.db.models import QuerySet

from league.arena.ladder import bradley_terry
from league.arena.models import DealPair, Season, SeasonRating

PREFIX = "coop:"


def is_key(key: str) -> bool:
    return key.startswith(PREFIX)


def parse_key(key: str) -> tuple[int, int]:
    """(season id, team size) of a rating key made by `Season.rating_key`."""
    season, _, players = key[len(PREFIX) :].partition(":")
    try:
        return int(season), int(players)
    except ValueError:
        raise ValueError(f"{key!r} is not a co-op rating key (coop:<season id>:<team size>)") from None


def game_of(key: str) -> str:
    """The game whose leaderboard a co-op ladder's refit changes."""
    season, _ = parse_key(key)
    return Season.objects.values_list("game", flat=True).get(pk=season)


def pairs(key: str) -> QuerySet[DealPair]:
    """The ladder's pairs of versions with their comparisons (what a refit fits)."""
    season, players = parse_key(key)
    return DealPair.objects.filter(season_id=season, players=players)


def stored_elos(key: str) -> dict[int, float]:
    season, players = parse_key(key)
    return dict(SeasonRating.objects.filter(season_id=season, players=players).values_list("version_id", "elo"))


def write(key: str, fitted: dict[int, bradley_terry.Rating]) -> None:
    """Rewrite the ladder's ratings from one fit (the caller holds the refit claim and the transaction)."""
    season, players = parse_key(key)
    SeasonRating.objects.filter(season_id=season, players=players).exclude(version_id__in=list(fitted)).delete()
    SeasonRating.objects.bulk_create(
        [
            SeasonRating(
                season_id=season,
                players=players,
                version_id=pk,
                elo=r.elo,
                low=r.low,
                high=r.high,
                comparisons=r.games,
                wins=r.wins,
                losses=r.losses,
                draws=r.draws,
            )
            for pk, r in fitted.items()
        ],
        update_conflicts=True,
        unique_fields=["season", "players", "version"],
        update_fields=["elo", "low", "high", "comparisons", "wins", "losses", "draws"],
        batch_size=2_000,
    )
