"""Ladder ratings: a Bradley-Terry maximum-likelihood fit on the Elo scale.

Every rated game between two bot versions is one observation; each bot version is its own player.
Player ``i`` has a strength ``theta_i`` and beats ``j`` with probability
``1 / (1 + exp(theta_j - theta_i))``; a draw counts as half a win for each side. Elo is
``anchor + theta * 400 / ln(10)``, so a 75 % score is a gap of ``400 * log10(3)`` (about 191) Elo.

Prior: every player is credited with ``prior_games`` virtual draws, shared evenly among the opponents
it actually met (as bayeselo does). That keeps an unbeaten or winless record finite (it "drew"
its own opponents a little) and barely moves anything else. It is deliberately not a pull towards a
fixed rating: the league pairs close ratings, so opponents form a long chain from the weakest to the
strongest, and a per-player pull towards 1500 would squeeze that chain (in a simulated chain of
2,000 versions it kept 3 % of the true spread); pulling only along games played keeps it.

Scale: games only fix differences, so each connected group of players (normally the whole ladder)
has its mean Elo set to ``anchor``; a group that never met the rest sits on ``anchor`` too. ``low`` and
``high`` are a 95 % interval for the player's offset from its group's mean, from the inverse of the
Hessian of the negative log-posterior (the observed Fisher information) at the optimum. A player
without games is placed on ``anchor`` with an infinite interval.

Sparse maths: the Hessian is the weighted graph Laplacian of the pairs that met (one off-diagonal entry
per pair), so nothing is ever n x n. Each group is ordered by reverse Cuthill-McKee and cut into
consecutive blocks so that every pair lies within one block or two neighbouring ones; the Hessian is
then block tridiagonal. Where that factor is cheap (a ladder of close-rating pairings is a narrow
band; a small league is one or two dense blocks) the variances are exact: block Cholesky, then the
Takahashi recurrences give the inverse on the blocks, i.e. every variance and the covariance of every
pair that met. Where the blocks would be dense and large (opponents drawn from the whole ladder: an
expander, whose factor fills in completely) the variances are estimated from the Neumann series of the
Laplacian's pseudo-inverse to second order, which such a graph makes converge fast (errors below 0.1 %
on random leagues; measured by ``python -m bench.ratings``), and pair covariances are not given. The
estimate is kept only if exact values for a few players, by conjugate gradients, agree with it within
2.5 %; one that fails is replaced by the exact solution where the factor is affordable, and gets the
share of its 10 slowest modes added where it is not (the long walks along a ladder of close ratings,
which the series leaves out). The fit itself is exact either way: Newton's method
with conjugate-gradient steps, preconditioned by the diagonal (and the block factor where a chain of
close ratings needs it), down to a step of a millionth of a standard error, which leaves an error of
~1e-12. The pieces: ``graph`` (who met whom, its groups
and which are solved exactly), ``blocks`` (the block factor and its inverse), ``newton`` (the optimum),
``variances`` (exact and estimated); docs/ratings.md says it in words.

Games are aggregated to per-pair counts before fitting, and the fit depends only on those counts, so
refitting from scratch on the same games in any order gives the same numbers.

API
---
``fit_ratings(results, *, prior_games=2.0, anchor=1500.0) -> dict[player, Rating]``
    ``results`` yields ``(player_a, player_b, score_a)`` with ``score_a`` in {0, 0.5, 1}.
``fit_counts(players, a, b, *, wins_a, wins_b, draws=None, prior_games=2.0, anchor=1500.0, start=None)``
    Pre-aggregated form (e.g. from a SQL ``GROUP BY``): row ``k`` says ``players[a[k]]`` and
    ``players[b[k]]`` played ``wins_a[k] + wins_b[k] + draws[k]`` games. A pair may appear in several
    rows and in either orientation; one row per game is valid too. ``start`` (player -> Elo, e.g. the
    previous fit's) only sets where Newton's method starts: a refit after a few more games then takes
    two or three steps instead of seven or eight, and ends on the same optimum (to ~1e-12 Elo).
``fit(...)`` (same arguments) -> ``Fit``
    The same fit as arrays: per player the Elo, the variance (Elo^2) and whether it is exact, and per
    pair that met its covariance (Elo^2; NaN where the variances are estimated). ``Fit.ratings`` is
    what ``fit_counts`` returns.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

if TYPE_CHECKING:
    from league.arena.ladder.bradley_terry.newton import Optimum
    from league.arena.ladder.bradley_terry.variances import Solves

ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal
# A weaker prior leaves an unbeaten player's curvature below double precision: the fit turns singular.
MIN_PRIOR_GAMES = 1e-6

# The league refits on 2 cores shared with running matches; there, BLAS with 2 threads fighting the
# other processes made a 200-player fit 18x slower than with 1.
BLAS_THREADS = 1
_HALF_POINTS = {0: 0, 0.5: 1, 1: 2}


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's fitted Elo, its 95 % interval and the record it was fitted on (real games only)."""

    elo: float
    low: float
    high: float
    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class Fit:
    """A whole fit, per player (in ``players`` order) and per pair of players that met (``pair_a < pair_b``).

    ``variance`` is of the player's offset from its group's mean, in Elo^2 (infinite without games);
    ``exact`` says whether it came from the factor or from the estimate; ``covariance`` is that of the
    two offsets of a pair, NaN where its group's variances are estimated.
    """

    players: Sequence[Hashable]
    elo: NDArray[np.float64]
    variance: NDArray[np.float64]
    exact: NDArray[np.bool_]
    pair_a: NDArray[np.int64]
    pair_b: NDArray[np.int64]
    covariance: NDArray[np.float64]
    wins: NDArray[np.int64]
    losses: NDArray[np.int64]
    draws: NDArray[np.int64]
    solves: Solves | None = None  # the variance check's: where a refit's check starts (Strengths.with_intervals)

    @cached_property
    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Each player's 95 % interval (``low``, ``high``): infinite without games."""
        margin = Z95 * np.sqrt(self.variance)
        return self.elo - margin, self.elo + margin

    @property
    def games(self) -> NDArray[np.int64]:
        return self.wins + self.losses + self.draws

    @cached_property
    def ratings(self) -> dict[Hashable, Rating]:
        low, high = (bound.tolist() for bound in self.bounds)
        elo, wins, losses, draws = self.elo.tolist(), self.wins.tolist(), self.losses.tolist(), self.draws.tolist()
        return {
            player: Rating(
                elo=elo[k],
                low=low[k],
                high=high[k],
                games=wins[k] + losses[k] + draws[k],
                wins=wins[k],
                losses=losses[k],
                draws=draws[k],
            )
            for k, player in enumerate(self.players)
        }


@dataclass(frozen=True)
class Strengths:
    """A fit's Elos before their intervals (``with_intervals`` computes those): Newton's method alone takes a few
    hundredths of a second where a large league's variances take tenths, so a league can show the Elos first."""

    players: Sequence[Hashable]
    elo: NDArray[np.float64]
    pair_a: NDArray[np.int64]
    pair_b: NDArray[np.int64]
    wins: NDArray[np.int64]
    losses: NDArray[np.int64]
    draws: NDArray[np.int64]
    opponents: NDArray[np.int64]
    optimum: Optimum | None  # None without players

    @property
    def games(self) -> NDArray[np.int64]:
        return self.wins + self.losses + self.draws

    def with_intervals(self, previous: Fit | None = None) -> Fit:
        """The whole fit: these Elos with each player's variance and the covariance of each pair that met.

        ``previous``, a fit of nearly the same games (the last refit's), only speeds it up: the variances' check
        starts from its solves."""
        solves = None
        if self.optimum is None:
            variance = covariance = np.zeros(0)
            exact = np.zeros(0, dtype=bool)
        else:
            warm = None if previous is None or previous.solves is None else self._carried(previous)
            with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
                mode = self.optimum.mode(warm)
            variance = np.where(self.opponents > 0, ELO_PER_NAT**2 * mode.variance, math.inf)
            exact, covariance, solves = mode.exact, ELO_PER_NAT**2 * mode.covariance, mode.solves
        return Fit(
            players=self.players,
            elo=self.elo,
            variance=variance,
            exact=exact,
            pair_a=self.pair_a,
            pair_b=self.pair_b,
            covariance=covariance,
            wins=self.wins,
            losses=self.losses,
            draws=self.draws,
            solves=solves,
        )

    def _carried(self, previous: Fit) -> Solves:
        """``previous``'s check solves in these players' numbering."""
        index = {player: k for k, player in enumerate(self.players)}
        new_index = np.fromiter((index.get(player, -1) for player in previous.players), np.int64, len(previous.players))
        return previous.solves.carried(new_index, len(self.players))  # type: ignore[union-attr]


def fit_ratings(
    results: Iterable[tuple[Hashable, Hashable, float]],
    *,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
) -> dict[Hashable, Rating]:
    """Fit ratings to individual game results ``(player_a, player_b, score_a)``, score_a in {0, 0.5, 1}."""
    index: dict[Hashable, int] = {}
    a_list: list[int] = []
    b_list: list[int] = []
    halves: list[int] = []
    for number, result in enumerate(results):
        try:
            player_a, player_b, score = result
        except (TypeError, ValueError):
            raise ValueError(f"result #{number} is {result!r}; expected (player_a, player_b, score_a)") from None
        try:
            half = _HALF_POINTS.get(score)
        except TypeError:
            half = None
        if half is None:
            raise ValueError(f"result #{number} has score_a {score!r}; expected 0, 0.5 or 1")
        a_list.append(index.setdefault(player_a, len(index)))
        b_list.append(index.setdefault(player_b, len(index)))
        halves.append(half)

    # Number the players canonically so that the input order cannot change a single bit of the fit.
    players = list(index)
    try:
        players.sort()
    except TypeError:
        pass  # ids of mixed types: keep first-seen order; the optimum is still the same to ~1e-12
    rank = np.empty(len(players), dtype=np.int64)
    rank[[index[p] for p in players]] = np.arange(len(players))
    a = rank[np.asarray(a_list, dtype=np.int64)]
    b = rank[np.asarray(b_list, dtype=np.int64)]
    h = np.asarray(halves, dtype=np.int64)
    return fit_counts(
        players,
        a,
        b,
        wins_a=h == 2,
        wins_b=h == 0,
        draws=h == 1,
        prior_games=prior_games,
        anchor=anchor,
    )


def fit_counts(
    players: Sequence[Hashable],
    a: ArrayLike,
    b: ArrayLike,
    *,
    wins_a: ArrayLike,
    wins_b: ArrayLike,
    draws: ArrayLike | None = None,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
    start: Mapping[Hashable, float] | None = None,
) -> dict[Hashable, Rating]:
    """Fit ratings to game counts: row k = ``players[a[k]]`` vs ``players[b[k]]`` with its wins/losses/draws."""
    return fit(
        players, a, b, wins_a=wins_a, wins_b=wins_b, draws=draws, prior_games=prior_games, anchor=anchor, start=start
    ).ratings


def fit(
    players: Sequence[Hashable],
    a: ArrayLike,
    b: ArrayLike,
    *,
    wins_a: ArrayLike,
    wins_b: ArrayLike,
    draws: ArrayLike | None = None,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
    start: Mapping[Hashable, float] | None = None,
) -> Fit:
    """``fit_counts`` as arrays, with each player's variance and the covariance of each pair that met."""
    return strengths(
        players, a, b, wins_a=wins_a, wins_b=wins_b, draws=draws, prior_games=prior_games, anchor=anchor, start=start
    ).with_intervals()


def strengths(
    players: Sequence[Hashable],
    a: ArrayLike,
    b: ArrayLike,
    *,
    wins_a: ArrayLike,
    wins_b: ArrayLike,
    draws: ArrayLike | None = None,
    prior_games: float = 2.0,
    anchor: float = 1500.0,
    start: Mapping[Hashable, float] | None = None,
) -> Strengths:
    """``fit`` up to the Elos (its arguments): the optimum, whose ``with_intervals`` is the whole fit."""
    n = len(players)
    if len(set(players)) != n:
        raise ValueError("players contains the same player more than once")
    if not (MIN_PRIOR_GAMES <= prior_games < math.inf):
        raise ValueError(f"prior_games must be a finite number >= {MIN_PRIOR_GAMES}, got {prior_games!r}")
    if not math.isfinite(anchor):
        raise ValueError(f"anchor must be finite, got {anchor!r}")
    a_idx = _indices(a, "a", n)
    b_idx = _indices(b, "b", n)
    rows = len(a_idx)
    wa = _counts(wins_a, "wins_a", rows)
    wb = _counts(wins_b, "wins_b", rows)
    dr = np.zeros(rows, dtype=np.int64) if draws is None else _counts(draws, "draws", rows)
    if len(b_idx) != rows:
        raise ValueError(f"a has {rows} rows but b has {len(b_idx)}")
    same = np.flatnonzero(a_idx == b_idx)
    if same.size:
        raise ValueError(f"row {same[0]}: player {players[a_idx[same[0]]]!r} plays itself")

    wins = np.bincount(a_idx, wa, n) + np.bincount(b_idx, wb, n)
    losses = np.bincount(a_idx, wb, n) + np.bincount(b_idx, wa, n)
    drawn = np.bincount(a_idx, dr, n) + np.bincount(b_idx, dr, n)

    i, j, half_points_i, games = _pairs(n, a_idx, b_idx, wa, wb, dr)
    opponents = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    virtual_draws = prior_games / opponents[i] + prior_games / opponents[j]
    if start:
        initial = np.array([(start.get(player, anchor) - anchor) / ELO_PER_NAT for player in players], dtype=float)
        if not np.all(np.isfinite(initial)):
            raise ValueError("start holds a rating that is not a finite number")
    else:
        initial = _log_odds(n, i, j, half_points_i, games)
    records = {"wins": wins.astype(np.int64), "losses": losses.astype(np.int64), "draws": drawn.astype(np.int64)}
    if n == 0:
        return Strengths(players, np.zeros(0), i, j, **records, opponents=opponents, optimum=None)
    # SciPy (the solver's) loads at the first fit, not with this package: every worker imports the package at start,
    # and SciPy was a fifth of a worker's start-up CPU, which a worker restarted after a crash makes the league wait.
    from league.arena.ladder.bradley_terry.graph import Graph
    from league.arena.ladder.bradley_terry.newton import Posterior, optimum

    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
        posterior = Posterior(Graph(n, i, j), (half_points_i + virtual_draws) / 2.0, games + virtual_draws)
        try:
            best = optimum(posterior, initial)
        except RuntimeError:
            if not start:
                raise
            # A start far off (ratings from very different games) can leave the Hessian numerically flat.
            best = optimum(posterior, _log_odds(n, i, j, half_points_i, games))
    return Strengths(players, anchor + ELO_PER_NAT * best.theta, i, j, **records, opponents=opponents, optimum=best)


def _log_odds(
    n: int,
    i: NDArray[np.int64],
    j: NDArray[np.int64],
    half_points_i: NDArray[np.float64],
    games: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Each player's log-odds of scoring, a game won and a game lost added: where Newton's method starts.

    Against opponents from across the ladder this is close to the fitted strength (from there a
    random-opponent league of 20,000 versions takes 5 steps rather than 8 from all zeros); against
    close ratings it is close to zero, as the fit is.
    """
    score = (np.bincount(i, half_points_i, n) + np.bincount(j, 2.0 * games - half_points_i, n)) / 2.0
    played = np.bincount(i, games, n) + np.bincount(j, games, n)
    return np.log((score + 1.0) / (played - score + 1.0))


def _indices(values: ArrayLike, name: str, n: int) -> NDArray[np.int64]:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integer player indices, got dtype {array.dtype}")
    array = array.astype(np.int64, copy=False)
    bad = np.flatnonzero((array < 0) | (array >= n))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] = {array[bad[0]]} is not an index into the {n} players")
    return array


def _counts(values: ArrayLike, name: str, rows: int) -> NDArray[np.int64]:
    array = np.asarray(values)
    if array.shape != (rows,):
        raise ValueError(f"{name} must have shape ({rows},) like a, got {array.shape}")
    if array.dtype == bool:
        return array.astype(np.int64)
    if not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"{name} must be numeric, got dtype {array.dtype}")
    whole = array.astype(np.int64)
    bad = np.flatnonzero((whole != array) | (whole < 0))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] = {array[bad[0]].item()!r} is not a non-negative whole number of games")
    return whole


def _pairs(
    n: int,
    a: NDArray[np.int64],
    b: NDArray[np.int64],
    wins_a: NDArray[np.int64],
    wins_b: NDArray[np.int64],
    draws: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Sum the rows per unordered pair (i < j), sorted by (i, j): i's score in half points and the games.

    The sums are integers, so they are exact whatever the row order.
    """
    swap = a > b
    if swap.any():
        a, b, wins_a, wins_b = (
            np.where(swap, b, a),
            np.where(swap, a, b),
            np.where(swap, wins_b, wins_a),
            np.where(swap, wins_a, wins_b),
        )
    half_points_a = 2 * wins_a + draws
    games = wins_a + wins_b + draws
    keys = a * n + b
    if not np.all(keys[1:] > keys[:-1]):  # rows not already one per pair in order (as a GROUP BY gives them)
        keys, inverse = np.unique(keys, return_inverse=True)
        half_points_a = np.bincount(inverse, half_points_a, len(keys))
        games = np.bincount(inverse, games, len(keys))
    played = games > 0
    if not played.all():
        keys, half_points_a, games = keys[played], half_points_a[played], games[played]
    return keys // n, keys % n, half_points_a, games
