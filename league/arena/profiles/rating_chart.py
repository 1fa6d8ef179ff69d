"""A bot's rating history as an inline SVG drawn server-side: one line per version, never one line for the bot.

A refit writes a point for every version whose rating moved (ladder/history.py), superseded versions included,
so the versions' histories interleave: joining "the newest version at each refit" zig-zags between versions.
Each version is its own line instead, the newest drawn on top with its 95 % interval as a band, and the
versions are named in a legend beside the chart rather than in labels that collide inside it.

Two layouts of the same points: a wide one for the card's full width on a laptop and a taller one for a phone
(CSS shows one), each with a viewBox so the page does not shift while it loads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from league.arena.models import RatingPoint

HISTORY_POINTS = 300  # the newest points of the bot's versions together
VERSIONS_DRAWN = 5  # the newest versions among them; older ones stay in the table and the API

# Newest first: colour and dash differ, so the lines tell apart without colour too.
STYLES = (
    ("#2457c5", ""),
    ("#b4460b", "7 4"),
    ("#16794a", "2 3"),
    ("#7e22ce", "10 3 2 3"),
    ("#5b6475", "1 4"),
)


@dataclass(frozen=True)
class Frame:
    """A layout's size in viewBox units, the margins around the plot and the text size."""

    name: str
    width: int
    height: int
    font: int
    left: int
    right: int = 14
    top: int = 14
    bottom: int = 34
    dates: str = "Y-m-d H:i"  # the axis' first and last refit, in Django's date format

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def plot_bottom(self) -> int:
        return self.height - self.bottom


FRAMES = (Frame("wide", 960, 300, 13, 52), Frame("narrow", 440, 320, 18, 54, bottom=40, dates="m-d H:i"))


@dataclass
class Series:
    """One version's points, oldest first, and how its line looks."""

    number: int
    active: bool
    points: list[RatingPoint]
    color: str
    dash: str

    @property
    def label(self) -> str:
        return f"v{self.number}"

    @property
    def words(self) -> str:
        first, last = self.points[0], self.points[-1]
        moved = f"Elo {first.elo:.0f} to {last.elo:.0f}" if len(self.points) > 1 else f"Elo {last.elo:.0f}"
        refits = f"{len(self.points)} refit{'s' if len(self.points) != 1 else ''}"
        return f"{self.label}{' (active)' if self.active else ''}: {moved}, {refits}"


@dataclass
class Layout:
    """Every coordinate of one layout; the template only prints them."""

    frame: Frame
    lines: list[dict] = field(default_factory=list)
    band: str = ""
    ticks: list[dict] = field(default_factory=list)
    end: dict = field(default_factory=dict)


@dataclass
class Chart:
    series: list[Series]
    layouts: list[Layout]
    rows: list[dict]  # the table's rows, newest first, as printed
    first: datetime
    last: datetime
    refits: int
    left_out: list[int]  # older versions' numbers that have points but are not drawn
    summary: str = ""


def history(numbers: dict[int, int], active_id: int | None) -> Chart | None:
    """The chart of the newest HISTORY_POINTS points of the versions in `numbers` (pk -> number), or None."""
    newest = RatingPoint.objects.filter(version_id__in=list(numbers)).order_by("-fitted_at", "-pk")
    per_version: dict[int, list[RatingPoint]] = {}
    for point in newest[:HISTORY_POINTS]:
        per_version.setdefault(point.version_id, []).append(point)
    if not per_version:
        return None
    ordered = sorted(per_version, key=lambda pk: numbers[pk], reverse=True)
    drawn, left_out = ordered[:VERSIONS_DRAWN], ordered[VERSIONS_DRAWN:]
    series = [Series(numbers[pk], pk == active_id, per_version[pk][::-1], *STYLES[k]) for k, pk in enumerate(drawn)]
    return chart_of(series, sorted(numbers[pk] for pk in left_out))


def chart_of(series: list[Series], left_out: list[int]) -> Chart:
    """Both layouts of the `series` (newest version first), on one axis of the refits any of them moved in."""
    times = sorted({point.fitted_at for one in series for point in one.points})
    newest_first = sorted(
        ((point, one) for one in series for point in one.points),
        key=lambda row: (row[0].fitted_at, row[1].number),
        reverse=True,
    )
    rows = [table_row(point, one.label) for point, one in newest_first]
    chart = Chart(series, [], rows, times[0], times[-1], len(times), left_out)
    chart.layouts = [layout(frame, series, times) for frame in FRAMES]
    parts = "; ".join(one.words for one in series)
    older = f"; older versions not drawn: {', '.join(f'v{n}' for n in left_out)}" if left_out else ""
    chart.summary = (
        f"{len(times)} refit{'s' if len(times) != 1 else ''} from {times[0]:%Y-%m-%d %H:%M} "
        f"to {times[-1]:%Y-%m-%d %H:%M} UTC; {parts}{older}"
    )
    return chart


def table_row(point: RatingPoint, label: str) -> dict:
    """A point as the history table prints it: formatted here once, not by a template filter per cell (up to
    HISTORY_POINTS rows on every render of the bot page)."""
    return {
        "when": timezone.localtime(point.fitted_at).strftime("%Y-%m-%d %H:%M:%S"),
        "label": label,
        "elo": f"{point.elo:.0f}",
        "interval": f"{point.low:.0f}–{point.high:.0f}",
        "games": point.games,
    }


def nice_ticks(low: float, high: float, most: int = 5) -> list[float]:
    span = max(high - low, 1.0)
    step = next(s for s in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000) if span / s <= most)
    first = (low // step + 1) * step
    return [first + k * step for k in range(int((high - first) // step) + 1)]


def layout(frame: Frame, series: list[Series], times: list[datetime]) -> Layout:
    drawn = Layout(frame)
    column = {time: k for k, time in enumerate(times)}
    newest = series[0].points
    low = min([point.elo for one in series for point in one.points] + [point.low for point in newest])
    high = max([point.elo for one in series for point in one.points] + [point.high for point in newest])
    pad = max((high - low) * 0.05, 5.0)
    low, high = low - pad, high + pad
    plot_w = frame.plot_right - frame.left
    plot_h = frame.plot_bottom - frame.top

    def x(time: datetime) -> float:
        k = column[time]
        return round(frame.left + (plot_w * k / (len(times) - 1) if len(times) > 1 else plot_w / 2), 1)

    def y(elo: float) -> float:
        return round(frame.top + plot_h * (high - elo) / (high - low), 1)

    for one in reversed(series):  # the newest on top
        first = one.points[0]
        drawn.lines.append(
            {
                "label": one.label,
                "color": one.color,
                "dash": one.dash,
                "points": " ".join(f"{x(p.fitted_at)},{y(p.elo)}" for p in one.points),
                "start": {"x": x(first.fitted_at), "y": y(first.elo)},
            }
        )
    if len(newest) == 1:  # a lone point's interval: a narrow bar rather than a band of no width
        middle, (point,) = x(newest[0].fitted_at), newest
        corners = [(middle - 4, point.high), (middle + 4, point.high), (middle + 4, point.low), (middle - 4, point.low)]
        drawn.band = " ".join(f"{left},{y(elo)}" for left, elo in corners)
    else:
        upper = [f"{x(p.fitted_at)},{y(p.high)}" for p in newest]
        lower = [f"{x(p.fitted_at)},{y(p.low)}" for p in reversed(newest)]
        drawn.band = " ".join(upper + lower)
    drawn.ticks = [{"y": y(value), "label": f"{value:.0f}"} for value in nice_ticks(low, high)]
    drawn.end = {"x": x(newest[-1].fitted_at), "y": y(newest[-1].elo)}
    return drawn
