"""Rating pools: the versions one Bradley-Terry fit rates together, and where that fit's ratings are kept.

A pool is a competitive game's ladder (every rated game of the game, ladder and tournament alike: `PairResult`,
`Rating`, with a history point per move) or one co-op season's ladder of one team size (its duplicate comparisons:
`DealPair`, `SeasonRating`). The refit machinery (ladder/refits.py) handles every pool the same way; what differs
between the two kinds lives here, once.

A pool's `key` names it where a text is needed: the primary key of its `RatingFit` row and the argument of the refit
task. A ladder's key is its game id (`face-to-face`); a co-op ladder's is `coop:<season id>:<team size>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db.models import QuerySet

from league.arena.ladder import bradley_terry, history, refit_sql, vacuuming
from league.arena.models import (
    COMPETITIVE_GAMES,
    Bot,
    DealPair,
    PairResult,
    Rating,
    Season,
    SeasonRating,
)

COOP_PREFIX = "coop:"


@dataclass(frozen=True)
class RatingPool:
    """Which game's ratings, and for a co-op ladder which season and team size (both None for a competitive one)."""

    game: str
    season: int | None = None
    players: int | None = None

    def __post_init__(self) -> None:
        if (self.season is None) != (self.players is None):
            raise ValueError(f"a co-op rating pool names both its season and its team size, got {self!r}")
        if self.is_coop == (self.game in COMPETITIVE_GAMES):
            needs = "no season" if self.game in COMPETITIVE_GAMES else "a season and a team size"
            raise ValueError(f"a rating pool of {self.game!r} has {needs}, got {self!r}")

    @classmethod
    def ladder(cls, game: str) -> RatingPool:
        """Every rated game of a competitive game."""
        return cls(game)

    @classmethod
    def coop(cls, season: Season, players: int) -> RatingPool:
        """One co-op season's ladder of `players`-seat teams."""
        return cls(season.game, season.pk, players)

    @classmethod
    def from_key(cls, key: str) -> RatingPool:
        """The pool a key names (a co-op key's game is looked up from its season); ValueError for anything else."""
        if not key.startswith(COOP_PREFIX):
            if key not in COMPETITIVE_GAMES:
                raise ValueError(f"{key!r} names no rating pool: a competitive game or coop:<season id>:<team size>")
            return cls.ladder(key)
        season, _, players = key[len(COOP_PREFIX) :].partition(":")
        try:
            season_id, team_size = int(season), int(players)
        except ValueError:
            raise ValueError(f"{key!r} is not a co-op rating key (coop:<season id>:<team size>)") from None
        game = Season.objects.filter(pk=season_id).values_list("game", flat=True).first()
        if game is None:
            raise ValueError(f"{key!r} names season {season_id}, which does not exist")
        return cls(game, season_id, team_size)

    @property
    def is_coop(self) -> bool:
        return self.season is not None

    @property
    def key(self) -> str:
        return f"{COOP_PREFIX}{self.season}:{self.players}" if self.is_coop else self.game

    def __str__(self) -> str:
        return self.key

    def pairs(self) -> QuerySet:
        """The pool's pairs of versions with their results: what a fit reads."""
        if self.is_coop:
            return DealPair.objects.filter(season_id=self.season, players=self.players)
        return PairResult.objects.filter(game=self.game)

    def stored_elos(self) -> dict[int, float]:
        """The Elo each version has now (a fit starts from them)."""
        if self.is_coop:
            rows = SeasonRating.objects.filter(season_id=self.season, players=self.players)
        else:
            rows = Rating.objects.filter(game=self.game)
        versions, elos = refit_sql.read_numbers(rows, ("version_id", "elo")).T
        return dict(zip(versions.astype(np.int64).tolist(), elos.tolist(), strict=True))

    def write(self, fitted: bradley_terry.Fit, last_played_us: np.ndarray, now: datetime) -> None:
        """Rewrite the pool's ratings from one fit (the caller holds the refit claim and the transaction);
        `last_played_us` is each fitted version's latest rated game (microseconds since 1970)."""
        if self.is_coop:
            _write_coop(self, fitted.ratings)
        else:
            _write_ladder(self.game, fitted, last_played_us, now)

    def write_elos(self, located: bradley_terry.Strengths, last_played_us: np.ndarray) -> None:
        """Show a fit's Elos before its intervals (the caller holds the refit claim and the transaction): the rated
        versions still playing move to their new Elo and record, each interval keeping its width; the history and a
        version's first rating wait for the whole fit (`write`)."""
        if self.is_coop:
            _shift_coop(self, located)
        else:
            _shift_ladder(self.game, located, last_played_us)


def _shift_ladder(game: str, located: bradley_terry.Strengths, last_played_us: np.ndarray) -> None:
    versions = np.asarray(located.players, dtype=np.int64)
    stored_games, _ = history.stored(game).of(versions)
    playing = np.flatnonzero(_still_playing(game, versions, stored_games, located.games) & (stored_games >= 0))
    written = refit_sql.shift_ratings(
        game,
        {
            "version_id": versions[playing],
            "elo": located.elo[playing],
            "games": located.games[playing],
            "wins": located.wins[playing],
            "losses": located.losses[playing],
            "last_played": last_played_us[playing],
        },
    )
    vacuuming.rewrote(Rating, written)


def _still_playing(game: str, versions: np.ndarray, stored_games: np.ndarray, games: np.ndarray) -> np.ndarray:
    """`still_playing` in arrays: per version, is it on the ladder or were its `games` not those of its stored rating
    (`stored_games`, -1 for none)?"""
    return np.isin(versions, _ladder_versions(game)) | (stored_games != games)


def _ladder_versions(game: str) -> np.ndarray:
    # The game's ladder versions, not a filter on the fitted ids: an IN list of 20,000 ids cost a second at 10k bots.
    # Read as one array (read_numbers): through the ORM's row tuples, 30 ms at 10,000 bots, twice a refit.
    versions = Bot.objects.on_ladder().filter(game=game, active_version__isnull=False)
    return refit_sql.read_numbers(versions, ("active_version_id",))[:, 0].astype(np.int64)


def still_playing(
    game: str, fitted: dict[int, bradley_terry.Rating], stored_games: dict[int, int]
) -> dict[int, bradley_terry.Rating]:
    """The fitted versions whose rating a refit writes: those on the ladder now, those with new games (a superseded
    version still finishing a tournament) and those never rated. Every other one no longer plays: it keeps the rating
    and interval of its last refit as a player (its pages and history show it), while the fit keeps it as a free player
    (docs/ratings.md says why)."""
    on_ladder = set(_ladder_versions(game).tolist())
    return {pk: r for pk, r in fitted.items() if pk in on_ladder or stored_games.get(pk) != r.games}


def _write_ladder(game: str, fitted: bradley_terry.Fit, last_played_us: np.ndarray, now: datetime) -> None:
    """The `Rating` rows of the versions still playing (as `still_playing` picks them, in arrays: ten thousand
    versions a refit), and a history point for each whose rating moved."""
    versions = np.asarray(fitted.players, dtype=np.int64)
    stored = history.stored(game)
    stale = stored.versions[~np.isin(stored.versions, versions)]  # rated once, no longer in any pair
    stored_games, last = stored.of(versions)
    playing = np.flatnonzero(_still_playing(game, versions, stored_games, fitted.games))
    low, high = fitted.bounds
    new = history.Points(fitted.elo, low, high, fitted.games).take(playing)
    last, written = last.take(playing), versions[playing]
    moved = history.moved(last, new)
    points_written = new.take(moved)
    refit_sql.insert_points(
        game,
        {
            "version_id": written[moved],
            "elo": points_written.elo,
            "low": points_written.low,
            "high": points_written.high,
            "games": points_written.games,
        },
        now,
    )
    points = new.where(moved, last)
    vacuuming.rewrote(Rating, len(written))
    refit_sql.replace_ratings(
        game,
        {
            "version_id": written,
            "elo": new.elo,
            "low": new.low,
            "high": new.high,
            "games": new.games,
            "wins": fitted.wins[playing],
            "losses": fitted.losses[playing],
            "last_played": last_played_us[playing],
            "point_elo": points.elo,
            "point_low": points.low,
            "point_high": points.high,
            "point_games": points.games,
        },
        stale=stale,
    )


def _shift_coop(pool: RatingPool, located: bradley_terry.Strengths) -> None:
    rows = list(SeasonRating.objects.filter(season_id=pool.season, players=pool.players))
    fitted = {pk: k for k, pk in enumerate(located.players)}
    elo, games, wins = located.elo.tolist(), located.games.tolist(), located.wins.tolist()
    losses, draws = located.losses.tolist(), located.draws.tolist()
    on_ladder = set(_ladder_versions(pool.game).tolist())
    shifted = []
    for row in rows:
        k = fitted.get(row.version_id)
        if k is None or (row.version_id not in on_ladder and row.comparisons == games[k]):
            continue
        if row.comparisons == games[k] and abs(elo[k] - row.elo) < refit_sql.SHIFT_STEP:
            continue
        moved = elo[k] - row.elo
        row.low, row.high, row.elo = row.low + moved, row.high + moved, elo[k]
        row.comparisons, row.wins, row.losses, row.draws = games[k], wins[k], losses[k], draws[k]
        shifted.append(row)
    SeasonRating.objects.bulk_update(
        shifted, ["elo", "low", "high", "comparisons", "wins", "losses", "draws"], batch_size=2_000
    )


def _write_coop(pool: RatingPool, fitted: dict[int, bradley_terry.Rating]) -> None:
    rows = SeasonRating.objects.filter(season_id=pool.season, players=pool.players)
    rows.exclude(version_id__in=list(fitted)).delete()
    playing = still_playing(pool.game, fitted, dict(rows.values_list("version_id", "comparisons")))
    vacuuming.rewrote(SeasonRating, len(playing))
    SeasonRating.objects.bulk_create(
        [
            SeasonRating(
                season_id=pool.season,
                players=pool.players,
                version_id=pk,
                elo=r.elo,
                low=r.low,
                high=r.high,
                comparisons=r.games,
                wins=r.wins,
                losses=r.losses,
                draws=r.draws,
            )
            for pk, r in playing.items()
        ],
        update_conflicts=True,
        unique_fields=["season", "players", "version"],
        update_fields=["elo", "low", "high", "comparisons", "wins", "losses", "draws"],
        batch_size=2_000,
    )
