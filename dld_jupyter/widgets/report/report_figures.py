"""Plotly figures of the report charts, built as data (`ReportViewer.figures()`).

The viewer draws these two charts itself in SVG so opening a report never waits for Plotly (a FigureWidget's
first render costs ~15 s here, see shared/BROWSER.md). These plain `go.Figure`s are for users who want to restyle,
export or embed the charts; plotly is imported only when they are asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import colours
from dld_jupyter.reports.stats import precision_by_type, time_by_type


def latency_per_type(reports: Sequence[Report], labels: Sequence[str], percent: bool = False) -> Any:
    """Average latency per layer type, one bar trace per report (in that report's colour)."""
    import plotly.graph_objects as go

    figure = go.Figure()
    for report, label, colour in zip(reports, labels, colours(len(reports)), strict=True):
        rows = time_by_type(report)
        figure.add_bar(
            name=label,
            y=[t.type for t in rows],
            x=[t.mean_percent if percent else t.mean_ms for t in rows],
            orientation="h",
            marker_color=colour,
            customdata=[[t.count, t.total_ms] for t in rows],
            hovertemplate="%{y}: %{x:.4f}" + (" %" if percent else " ms") + "<br>%{customdata[0]} layers, "
            "total %{customdata[1]:.4f} ms<extra>" + label + "</extra>",
        )
    figure.update_layout(
        title="Average latency per layer type",
        xaxis_title="% of layer time" if percent else "ms",
        yaxis={"autorange": "reversed"},
        barmode="group",
        template="plotly_white",
        height=max(300, 22 * len({t.type for r in reports for t in time_by_type(r)}) * len(reports) + 120),
    )
    return figure


def precision_per_type(report: Report, label: str = "") -> Any:
    """Sunburst: layer types inside, their precisions outside (seed 000 "Precision per Layer Type")."""
    import plotly.graph_objects as go

    ids, names, parents, values = [], [], [], []
    for row in precision_by_type(report):
        ids.append(row.type)
        names.append(row.type)
        parents.append("")
        values.append(row.count)
        for precision, count in row.precisions:
            ids.append(f"{row.type}/{precision}")
            names.append(precision)
            parents.append(row.type)
            values.append(count)
    figure = go.Figure(
        go.Sunburst(ids=ids, labels=names, parents=parents, values=values, branchvalues="total", maxdepth=2)
    )
    figure.update_layout(title=f"Precision per layer type{' - ' + label if label else ''}", height=420)
    return figure


def figures(reports: Sequence[Report], labels: Sequence[str]) -> dict[str, Any]:
    """{"latency_per_type", "precision_per_type", "timeline"} for one report; with several, the per-report
    figures are keyed "precision_per_type <label>" and "timeline <label>"."""
    from dld_jupyter.widgets.report.timeline_figure import timeline_figure

    result = {"latency_per_type": latency_per_type(reports, labels)}
    if len(reports) == 1:
        result["precision_per_type"] = precision_per_type(reports[0])
        result["timeline"] = timeline_figure(reports[0])
    else:
        for report, label in zip(reports, labels, strict=True):
            result[f"precision_per_type {label}"] = precision_per_type(report, label)
            result[f"timeline {label}"] = timeline_figure(report, f"Inference timeline - {label}")
    return result
