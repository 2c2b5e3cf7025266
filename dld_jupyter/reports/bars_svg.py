"""Grouped bar charts as inline SVG for the standalone HTML pages: layer baselines and network metrics.

The same drawing as the viewer's `groupedBars` (js/src/widgets/report/baselines.ts): one group per metric, one bar
per series in its colour, values in ms. Every label goes through the one escaping helper (names come from models).
Colours are the viewer's: layer baselines in Paul Tol's bright scheme, reports in their Okabe-Ito colours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dld_jupyter.formats.html_text import text
from dld_jupyter.report_format.model import Report

# Paul Tol's bright scheme, as js/src/widgets/report/baselines.ts: apart from the reports' Okabe-Ito colours.
BASELINE_COLOURS = ("#EE6677", "#228833", "#4477AA", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
LAYER_METRICS = ("median", "mean", "min", "max")


@dataclass(frozen=True)
class Series:
    label: str
    colour: str
    values: tuple[float, ...]  # NaN: no bar


def grouped_bars_svg(metrics: Sequence[str], series: Sequence[Series], label: str, width: int = 720) -> str:
    bar, left = 14, 160
    row = bar * max(1, len(series)) + 10
    height = 10 + len(metrics) * row + 10
    finite = [v for s in series for v in s.values if math.isfinite(v)]
    top = max(finite, default=0.0) or 1.0
    plot = width - left - 110
    parts = [f'<svg width="{width}" height="{height}" role="img" aria-label="{text(label)}">']
    for i, metric in enumerate(metrics):
        y = 8 + i * row
        parts.append(f'<text x="{left - 6}" y="{y + row / 2 + 4:.1f}" text-anchor="end">{text(metric)}</text>')
        for k, one in enumerate(series):
            value = one.values[i]
            if not math.isfinite(value):
                continue
            w = max(value / top * plot, 0.5)
            yy = y + 3 + k * bar
            parts.append(
                f'<rect x="{left}" y="{yy}" width="{w:.2f}" height="{bar - 2}" fill="{one.colour}">'
                f"<title>{text(one.label)} · {text(metric)}: {value:.4f} ms</title></rect>"
                f'<text x="{left + w + 4:.2f}" y="{yy + bar - 4}">{value:.4f} ms</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def legend_html(series: Sequence[Series]) -> str:
    return "<p>" + " ".join(
        f'<span style="color:{s.colour}">&#9632;</span> {text(s.label)}' for s in series
    ) + "</p>"


def baselines_html(report: Report, baselines: Sequence[int]) -> str:
    """The layer baselines section: each baseline layer's median/mean/min/max in its colour, and a table."""
    series = []
    rows = []
    for k, position in enumerate(baselines):
        layer = report.layers[position]
        colour = BASELINE_COLOURS[k % len(BASELINE_COLOURS)]
        series.append(Series(layer.name, colour, (layer.median_ms, layer.mean_ms, layer.min_ms, layer.max_ms)))
        rows.append(
            f'<tr><td><span style="color:{colour}">&#9632;</span></td><td>{text(layer.name)}</td>'
            f"<td>{text(layer.type)}</td><td>{text(layer.precision)}</td>"
            + "".join(f"<td class='num'>{v:.4f}</td>" for v in series[-1].values) + "</tr>"
        )
    head = "<tr><th></th><th>Layer</th><th>Type</th><th>Precision</th>" + "".join(
        f"<th>{m} (ms)</th>" for m in LAYER_METRICS) + "</tr>"
    chart = grouped_bars_svg(LAYER_METRICS, series, "Layer baselines")
    return legend_html(series) + chart + f"<table>{head}{''.join(rows)}</table>"


def network_series(reports: Sequence[Report], labels: Sequence[str], colours: Sequence[str]) -> list[Series]:
    """Median, p90, min, max pass time per report; a spread a report did not measure (a trtexec import without
    --times holds 0) has no bar."""
    return [Series(label, colour, (r.summary.median_ms, *(v if v > 0 else math.nan for v in
                                                            (r.summary.p90_ms, r.summary.min_ms, r.summary.max_ms))))
            for r, label, colour in zip(reports, labels, colours, strict=True)]
