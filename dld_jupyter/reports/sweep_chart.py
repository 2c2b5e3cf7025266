"""A sweep's latency-vs-throughput Pareto chart as SVG: every finished point drawn and labelled, inside the plot.

Why not Plotly: the Plotly chart had no labels (a point was found by hovering), its axes came from Plotly's
autorange with no room for text, and in the designer's ~330 px dock its fixed-width figure was cut on the right (an
fp16 point at 125 ms was invisible); a FigureWidget also costs ~15 s to first render here (shared/BROWSER.md). This
chart is laid out here, so the layout can be tested: the axes are chosen to hold every point with its label (a
logarithmic axis when the values span more than LOG_SPAN times), each label is placed beside its point where it
overlaps no other label or point and stays inside the plot, and the SVG scales with its container (viewBox) down to
MIN_WIDTH, below which the box around it scrolls (the sweep view's `chart_html`). `SweepView.pareto_figure()`
still builds the Plotly figure for users who want to restyle or export it.

Labels name what differs between the points (a 2-batch x 4-precision sweep of one model: "b8 fp16"), the full
point id is in each point's tooltip. Names are text: every string goes through formats/html_text.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dld_jupyter.activities.sweep.manifest import DONE
from dld_jupyter.formats.html_text import Html, join, tag
from dld_jupyter.reports.compare import colours
from dld_jupyter.reports.sweep_table import pareto_ids

WIDTH, HEIGHT = 680.0, 420.0
LEFT, RIGHT, TOP, BOTTOM = 70.0, 20.0, 34.0, 52.0  # margins: axis titles and tick labels live there
FONT = 12.0
CHAR = 0.62 * FONT  # a generous width per character of the label font (sans-serif digits are ~0.55 em)
RADIUS = 5.0
MIN_WIDTH = 360.0  # narrower, the labels would be too small to read: the chart's box scrolls instead
PAD = 0.06  # share of the plot left empty beyond the extreme points
LOG_SPAN = 30.0  # values spanning more than this ratio get a logarithmic axis
DIMENSIONS = ("model", "batch", "provider", "precision", "target")


@dataclass(frozen=True)
class Box:
    """A rectangle in SVG user units (x, y: top left)."""

    x: float
    y: float
    width: float
    height: float

    def overlaps(self, other: Box) -> bool:
        return (self.x < other.x + other.width and other.x < self.x + self.width
                and self.y < other.y + other.height and other.y < self.y + self.height)

    def grown(self, by: float) -> Box:
        return Box(self.x - by, self.y - by, self.width + 2 * by, self.height + 2 * by)

    def inside(self, other: Box) -> bool:
        return (self.x >= other.x and self.y >= other.y and self.x + self.width <= other.x + other.width
                and self.y + self.height <= other.y + other.height)


@dataclass(frozen=True)
class Axis:
    """One axis: the value range shown, linear or logarithmic, and its ticks."""

    low: float
    high: float
    log: bool
    ticks: tuple[float, ...]

    def fraction(self, value: float) -> float:
        if self.log:
            return (math.log10(value) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        return (value - self.low) / (self.high - self.low)


@dataclass(frozen=True)
class Placed:
    """One drawn point: its row, where it is, its colour, its label and the label's box."""

    row: dict[str, Any]
    x: float
    y: float
    colour: str
    label: str
    box: Box
    front: bool
    leader: bool = False  # the label sits away from its point (every place beside it was taken): a line joins them


@dataclass(frozen=True)
class ParetoChart:
    """The laid-out chart: the plot area, both axes and every placed point (see `pareto_chart`)."""

    plot: Box
    x_axis: Axis
    y_axis: Axis
    points: tuple[Placed, ...]
    models: tuple[tuple[str, str], ...]  # (model, colour), in legend order

    def svg(self) -> Html:
        """The chart as inline SVG, for HTML (whose parser fixes the case of `viewBox`)."""
        return _svg(self)

    def svg_file(self) -> str:
        """The chart as an SVG file of its own (`dld report sweep --chart`): XML, so its namespace and the
        case-sensitive attribute names are written out."""
        text = str(self.svg()).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
        return text.replace("viewbox=", "viewBox=").replace("preserveaspectratio=", "preserveAspectRatio=")


def _nice_step(span: float, count: int = 5) -> float:
    raw = span / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))


def axis_for(values: Sequence[float]) -> Axis:
    """A range holding every value with PAD to spare, ticks at round numbers; logarithmic when it spans > LOG_SPAN."""
    low, high = min(values), max(values)
    if low > 0 and high / low > LOG_SPAN:
        span = math.log10(high) - math.log10(low)
        low_e, high_e = math.log10(low) - PAD * span, math.log10(high) + PAD * span
        candidates = [m * 10.0 ** e for e in range(math.floor(low_e), math.ceil(high_e) + 1) for m in (1, 2, 5)]
        shown = tuple(t for t in candidates if 10 ** low_e <= t <= 10 ** high_e)
        if span > 3:  # decades only, else the labels crowd
            shown = tuple(t for t in shown if math.isclose(math.log10(t), round(math.log10(t))))
        return Axis(10 ** low_e, 10 ** high_e, True, shown)
    if high == low:
        low, high = (low * 0.5, low * 1.5) if low > 0 else (low - 1, high + 1)
    span = high - low
    low, high = low - PAD * span, high + PAD * span
    if low < 0 <= min(values):
        low = 0.0  # latency and throughput are never negative: the axis starts at 0 rather than below it
    step = _nice_step(high - low)
    first = math.ceil(low / step) * step
    ticks = tuple(round(first + i * step, 10) for i in range(int((high - first) / step + 1e-9) + 1))
    return Axis(low, high, False, ticks)


def point_labels(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Each row's label: the values of the dimensions that differ between the rows ("b8 fp16"), the id if none do."""
    varying = [d for d in DIMENSIONS if len({str(r.get(d)) for r in rows}) > 1]
    labels = []
    for row in rows:
        parts = [f"b{row['batch']}" if d == "batch" else str(row.get(d)) for d in varying]
        labels.append(" ".join(parts) if parts else str(row["id"]))
    return labels


def _text_box(label: str, x: float, y: float, where: str) -> Box:
    width, height, gap = CHAR * len(label), FONT + 2, RADIUS + 3
    if where == "right":
        return Box(x + gap, y - height / 2, width, height)
    if where == "left":
        return Box(x - gap - width, y - height / 2, width, height)
    if where == "above":
        return Box(x - width / 2, y - gap - height, width, height)
    if where == "below":
        return Box(x - width / 2, y + gap, width, height)
    if where == "above-right":
        return Box(x + gap / 2, y - gap - height, width, height)
    if where == "above-left":
        return Box(x - gap / 2 - width, y - gap - height, width, height)
    if where == "below-right":
        return Box(x + gap / 2, y + gap, width, height)
    return Box(x - gap / 2 - width, y + gap, width, height)  # below-left


# Room kept between a label and anything placed: a browser draws a line of text a little taller than FONT + 2 (the
# font's ascent and descent), so two boxes that only touched were drawn overlapping (the last CI run's results tab)
LABEL_GAP = 1.5
MAX_LEADER_LINES = 6  # how far (in label lines) a label may move away from its point, joined by a leader line
PLACES = ("right", "left", "above", "below", "above-right", "above-left", "below-right", "below-left")


def _place(label: str, x: float, y: float, plot: Box, taken: list[Box]) -> tuple[Box, bool]:
    """The first place beside the point that stays in the plot and overlaps nothing placed; else the nearest free
    place a few lines above or below it, joined by a leader line (points of equal timings, e.g. two copies of one
    model, leave no free place beside each other); else the place that overlaps least, moved back into the plot.
    Returns the box and whether it needs a leader."""
    scored = []
    for rank, where in enumerate(PLACES):
        box = _text_box(label, x, y, where)
        clashes = sum(box.grown(LABEL_GAP).overlaps(other) for other in taken)
        if box.inside(plot) and clashes == 0:
            return box, False
        scored.append((not box.inside(plot), clashes, rank, box))
    step = FONT + 4
    for lines in range(1, MAX_LEADER_LINES + 1):
        for sign, where in itertools.product((-1, 1), ("right", "left")):
            near = _text_box(label, x, y, where)
            box = Box(near.x, near.y + sign * lines * step, near.width, near.height)
            if box.inside(plot) and not any(box.grown(LABEL_GAP).overlaps(other) for other in taken):
                return box, True
    box = min(scored, key=lambda entry: entry[:3])[3]
    return Box(min(max(box.x, plot.x), plot.x + plot.width - box.width),
               min(max(box.y, plot.y), plot.y + plot.height - box.height), box.width, box.height), False


def pareto_chart(rows: Sequence[dict[str, Any]]) -> ParetoChart | None:
    """The chart of the finished rows of a sweep table (reports/sweep_table.sweep_rows); None when none finished.
    The x axis is the median latency (ms), the y axis the throughput (items/s); the axes leave room on every side
    for the longest label, so each label fits beside its point."""
    done = [r for r in rows if r["state"] == DONE and r["median_ms"] and r["throughput"]]
    if not done:
        return None
    labels = point_labels(done)
    plot = Box(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM)
    longest = min(max(CHAR * len(label) for label in labels) + RADIUS + 3, plot.width / 4)
    plot = Box(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM)
    inner = Box(plot.x + longest, plot.y + FONT + RADIUS + 6, plot.width - 2 * longest,
                plot.height - 2 * (FONT + RADIUS + 6))  # where the points go: a label fits on either side
    x_axis, y_axis = axis_for([r["median_ms"] for r in done]), axis_for([r["throughput"] for r in done])
    x_axis = _widen(x_axis, plot.x, plot.width, inner.x, inner.width)
    y_axis = _widen(y_axis, plot.y, plot.height, inner.y, inner.height, flip=True)
    models = sorted({str(r["model"]) for r in done})
    colour_of = dict(zip(models, colours(len(models)), strict=True))
    front = set(pareto_ids(done))
    centres = [(plot.x + x_axis.fraction(r["median_ms"]) * plot.width,
                plot.y + (1 - y_axis.fraction(r["throughput"])) * plot.height) for r in done]
    taken = [Box(x - RADIUS, y - RADIUS, 2 * RADIUS, 2 * RADIUS) for x, y in centres]
    placed = []
    for row, label, (x, y) in sorted(zip(done, labels, centres, strict=True), key=lambda entry: entry[2]):
        box, leader = _place(label, x, y, plot, taken)
        taken.append(box)
        placed.append(Placed(row, x, y, colour_of[str(row["model"])], label, box, row["id"] in front, leader))
    return ParetoChart(plot, x_axis, y_axis, tuple(placed), tuple(colour_of.items()))


def _widen(axis: Axis, start: float, length: float, inner_start: float, inner_length: float,
           flip: bool = False) -> Axis:
    """The axis stretched so its data range maps to the inner band of the plot (room for labels on both sides)."""
    before = (inner_start - start) / length
    after = 1 - (inner_start + inner_length - start) / length
    if flip:
        before, after = after, before
    if axis.log:
        low, high = math.log10(axis.low), math.log10(axis.high)
    else:
        low, high = axis.low, axis.high
    span = (high - low) / max(1 - before - after, 0.2)
    low, high = low - before * span, high + after * span
    if axis.log:
        low_v, high_v = 10 ** low, 10 ** high
    else:
        low_v, high_v = (max(low, 0.0) if axis.low >= 0 else low), high
    ticks = tuple(t for t in (axis_for([low_v, high_v]).ticks if not axis.log else axis.ticks) if low_v <= t <= high_v)
    return Axis(low_v, high_v, axis.log, ticks)


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:g}"  # 120,000 (1e+05 named two ticks the same)


def _scale(axis: Axis) -> str:
    return " (log scale)" if axis.log else ""


def _svg(chart: ParetoChart) -> Html:
    plot, parts = chart.plot, []
    bottom, right = plot.y + plot.height, plot.x + plot.width
    parts.append(tag("rect", x=plot.x, y=plot.y, width=plot.width, height=plot.height, fill="none", stroke="#bbb",
                     class_="dld-pareto-plot"))
    for value in chart.x_axis.ticks:
        x = round(plot.x + chart.x_axis.fraction(value) * plot.width, 2)
        parts.append(tag("line", x1=x, x2=x, y1=plot.y, y2=bottom, stroke="#eee"))
        parts.append(tag("text", _number(value), x=x, y=bottom + 16, text_anchor="middle", font_size=FONT))
    for value in chart.y_axis.ticks:
        y = round(plot.y + (1 - chart.y_axis.fraction(value)) * plot.height, 2)
        parts.append(tag("line", x1=plot.x, x2=right, y1=y, y2=y, stroke="#eee"))
        parts.append(tag("text", _number(value), x=plot.x - 6, y=y + 4, text_anchor="end", font_size=FONT))
    parts.append(tag("text", f"median latency (ms){_scale(chart.x_axis)}", x=plot.x + plot.width / 2, y=bottom + 38,
                     text_anchor="middle", font_size=FONT + 1))
    parts.append(tag("text", f"throughput (items/s){_scale(chart.y_axis)}", x=16, y=plot.y + plot.height / 2,
                     text_anchor="middle", font_size=FONT + 1, transform=f"rotate(-90 16 {plot.y + plot.height / 2})"))
    front = sorted((p for p in chart.points if p.front), key=lambda p: p.x)
    if len(front) > 1:
        parts.append(tag("polyline", points=" ".join(f"{p.x:.2f},{p.y:.2f}" for p in front), fill="none",
                         stroke="#555", stroke_dasharray="4 3", class_="dld-pareto-front"))
    for p in chart.points:
        r = p.row
        tip = (f"{r['id']}\nbatch {r['batch']}, {r['provider']}, {r['precision']}\n"
               f"{r['median_ms']:.4g} ms, {r['throughput']:.4g} items/s" + ("\nPareto front" if p.front else ""))
        leader = () if not p.leader else (tag(
            "line", x1=f"{p.x:.2f}", y1=f"{p.y:.2f}", x2=f"{p.box.x if p.box.x > p.x else p.box.x + p.box.width:.2f}",
            y2=f"{p.box.y + p.box.height / 2:.2f}", stroke=p.colour, stroke_width=1, class_="dld-pareto-leader"),)
        parts.append(tag("g", tag("title", tip), *leader,
                         tag("circle", cx=f"{p.x:.2f}", cy=f"{p.y:.2f}", r=RADIUS, fill=p.colour,
                             stroke="#222" if p.front else "white", stroke_width=1.5 if p.front else 1),
                         tag("text", p.label, x=f"{p.box.x:.2f}", y=f"{p.box.y + p.box.height - 3:.2f}",
                             font_size=FONT, class_="dld-pareto-label"),
                         class_="dld-pareto-point", data_point=r["id"]))
    parts.append(_legend(chart))
    return tag("svg", *parts, viewbox=f"0 0 {WIDTH:g} {HEIGHT:g}", width="100%", role="img",
               preserveaspectratio="xMinYMin meet", class_="dld-pareto", font_family="sans-serif",
               style=f"min-width:{MIN_WIDTH:g}px;max-width:{1.25 * WIDTH:g}px;height:auto",
               aria_label="Latency vs throughput")


def _legend(chart: ParetoChart) -> Html:
    items, x = [], chart.plot.x
    entries = [(Path(model).name, colour) for model, colour in chart.models] if len(chart.models) > 1 else []
    for name, colour in entries:
        items.append(tag("circle", cx=x + RADIUS, cy=14, r=RADIUS, fill=colour))
        items.append(tag("text", name, x=x + 2 * RADIUS + 4, y=18, font_size=FONT))
        x += 2 * RADIUS + 14 + CHAR * len(name)
    items.append(tag("line", x1=x, x2=x + 22, y1=14, y2=14, stroke="#555", stroke_dasharray="4 3"))
    items.append(tag("text", "Pareto front (outlined points)",
                     x=x + 28, y=18, font_size=FONT))
    return tag("g", join(items), class_="dld-pareto-legend")
