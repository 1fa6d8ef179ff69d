"""The LLR of a version test against its two bounds, as the coordinates of an inline SVG chart (drawn server-side:
the page's live part is re-rendered and swapped, and CSP forbids inline script)."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 84, 16, 16, 34


@dataclass(frozen=True)
class Bound:
    y: float
    label: str


@dataclass(frozen=True)
class LlrChart:
    width: int
    height: int
    left: int
    plot_right: int
    top: int
    plot_bottom: int
    line: str  # polyline points
    end_x: float
    end_y: float
    upper: Bound
    lower: Bound
    zero_y: float
    games: int  # the x axis runs from 0 to this
    summary: str


def llr_chart(history: list[list[float]], lower: float, upper: float, cap: int) -> LlrChart:
    """The chart of `history` ([games, llr] after each batch) between the bounds; the x axis ends at the games played
    (at least a tenth of the cap, so the first batches do not fill the width)."""
    points = [(0.0, 0.0), *((float(games), float(llr)) for games, llr in history)]
    games = max(points[-1][0], cap / 10, 1.0)
    low = min(lower, *(llr for _, llr in points))
    high = max(upper, *(llr for _, llr in points))
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    plot_right, plot_bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    def x(value: float) -> float:
        return round(LEFT + (plot_right - LEFT) * value / games, 1)

    def y(value: float) -> float:
        return round(plot_bottom - (plot_bottom - TOP) * (value - low) / (high - low), 1)

    line = " ".join(f"{x(g)},{y(v)}" for g, v in points)
    last_games, last_llr = points[-1]
    summary = f"LLR {last_llr:+.2f} after {int(last_games):,} games; H1 is accepted at {upper:+.2f}, H0 at {lower:+.2f}"
    return LlrChart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        plot_right=plot_right,
        top=TOP,
        plot_bottom=plot_bottom,
        line=line,
        end_x=x(last_games),
        end_y=y(last_llr),
        upper=Bound(y(upper), f"H1 {upper:+.2f}"),
        lower=Bound(y(lower), f"H0 {lower:+.2f}"),
        zero_y=y(0.0),
        games=int(games),
        summary=summary,
    )
