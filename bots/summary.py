"""Summaries of a match: per-bot wins with a 95% interval (Face to Face), cards left (co-op games)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

from bots.match import MatchResult
from games import FACE_TO_FACE

Z95 = 1.959963984540054
CARDS_LEFT_BUCKETS = ((0, 0), (1, 5), (6, 10), (11, 20), (21, 40), (41, 98))


def wilson_interval(successes: int, trials: int) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (well-behaved at 0% and 100%)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + Z95**2 / trials
    centre = (p + Z95**2 / (2 * trials)) / denominator
    margin = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / denominator
    return (max(0.0, centre - margin), min(1.0, centre + margin))


def summarize(result: MatchResult) -> dict[str, Any]:
    spec = result.spec
    played = result.games
    n = len(played)
    summary: dict[str, Any] = {
        "game": spec.game,
        "players": spec.seat_count(),
        "games": n,
        "seed": str(spec.seed),
        "duplicate": spec.duplicate,
        "sandbox": spec.sandbox,
        "elapsed_s": round(result.elapsed, 3),
        "games_per_second": round(n / result.elapsed, 1) if result.elapsed > 0 else None,
        "mean_turns": round(statistics.fmean(game.turns for game in played), 2) if played else 0,
        "reasons": dict(Counter(game.outcome.termination.value for game in played)),
    }
    if spec.game == FACE_TO_FACE:
        summary["bots"] = [_bot_record(result, index) for index in range(len(spec.bots))]
    else:
        summary.update(_coop_record(result))
        summary["bots"] = [{"bot": bot.label, "version": bot.resolved_version()} for bot in spec.bots]
    return summary


def _bot_record(result: MatchResult, bot_index: int) -> dict[str, Any]:
    bot = result.spec.bots[bot_index]
    wins = sum(1 for game in result.games if game.winner_bot() == bot_index)
    n = len(result.games)
    faults = Counter(
        game.outcome.termination.value
        for game in result.games
        if game.outcome.termination.is_forfeit and game.seat_bots[game.outcome.seat] == bot_index
    )
    low, high = wilson_interval(wins, n)
    return {
        "bot": bot.label,
        "version": bot.resolved_version(),
        "wins": wins,
        "losses": n - wins,
        "win_rate": round(wins / n, 4) if n else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
        "forfeits": dict(faults),
    }


def _coop_record(result: MatchResult) -> dict[str, Any]:
    scores = [game.outcome.score for game in result.games]
    n = len(scores)
    wins = sum(1 for score in scores if score == 0)
    low, high = wilson_interval(wins, n)
    histogram = {
        (f"{low_}" if low_ == high_ else f"{low_}-{high_}"): sum(1 for s in scores if low_ <= s <= high_)
        for low_, high_ in CARDS_LEFT_BUCKETS
    }
    return {
        "wins": wins,
        "win_rate": round(wins / n, 4) if n else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
        "mean_cards_left": round(statistics.fmean(scores), 3) if scores else None,
        "median_cards_left": statistics.median(scores) if scores else None,
        "cards_left_histogram": histogram,
    }


def format_summary(summary: dict[str, Any]) -> str:
    lines = [
        f"{summary['game']}: {summary['games']} game(s), seed {summary['seed']}"
        + (", duplicate deals" if summary["duplicate"] else "")
        + ("" if summary["sandbox"] else ", NOT sandboxed"),
    ]
    if summary["game"] == FACE_TO_FACE:
        for bot in summary["bots"]:
            low, high = bot["ci95"]
            forfeits = ", ".join(f"{k} {v}" for k, v in bot["forfeits"].items()) or "none"
            lines.append(
                f"  {bot['bot']:<24} wins {bot['wins']:>6}  {100 * bot['win_rate']:5.1f}% "
                f"(95% CI {100 * low:.1f}-{100 * high:.1f}%)  forfeits: {forfeits}"
            )
    else:
        low, high = summary["ci95"]
        lines.append(f"  team: {', '.join(bot['bot'] for bot in summary['bots'])}")
        lines.append(
            f"  win rate {100 * summary['win_rate']:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%), "
            f"cards left mean {summary['mean_cards_left']}, median {summary['median_cards_left']}"
        )
        total = max(1, summary["games"])
        for bucket, count in summary["cards_left_histogram"].items():
            bar = "#" * round(40 * count / total)
            lines.append(f"  {bucket:>6} left {count:>6}  {bar}")
    reasons = ", ".join(f"{name} {count}" for name, count in sorted(summary["reasons"].items()))
    lines.append(f"  reasons: {reasons}")
    lines.append(f"  mean turns {summary['mean_turns']}, {summary['games_per_second']} games/s")
    return "\n".join(lines)
