"""Results in words that name the bots: "bob/bar wins: alice/foo was stuck", "alice/foo forfeits: timeout"."""

from __future__ import annotations

from collections.abc import Sequence

from league.arena.models import FORFEITS

FAULTS = {
    "illegal-turn": "illegal turn",
    "command-broken": "broke a command",
    "timeout": "timeout",
    "crash": "crash",
    "protocol-error": "protocol error",
    "resource-limit": "resource limit",
    "sandbox-violation": "sandbox violation",
}


def game_result(
    termination: str, winner_seat: int | None, fault_seat: int | None, score: int | None, names: Sequence[str]
) -> str:
    """One game's result naming the bot in each seat (`names[seat]`)."""

    def name(seat: int | None) -> str:
        return names[seat] if seat is not None and 0 <= seat < len(names) else f"seat {seat}"

    if score is not None:  # the co-op games: the seats play as one team
        left = "the team placed every card" if score == 0 else f"{score} card{'' if score == 1 else 's'} left"
        if termination in FORFEITS:
            return f"{left}: {name(fault_seat)} forfeits: {FAULTS.get(termination, termination)}"
        return left if score == 0 else f"{left}: the team was {termination}"
    if termination in FORFEITS:
        return f"{name(fault_seat)} forfeits: {FAULTS.get(termination, termination)}"
    if winner_seat is None:
        return "draw"
    if termination == "stuck" and len(names) == 2:
        return f"{name(winner_seat)} wins: {name(1 - winner_seat)} was stuck"
    if termination == "all-cards-played":
        return f"{name(winner_seat)} wins: played all its cards"
    return f"{name(winner_seat)} wins: {termination}"


def points(value: float) -> str:
    """Match points with halves as ½: 6.5 -> "6½", 0.5 -> "½", 3.0 -> "3"."""
    whole, half = divmod(round(value * 2), 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"
