"""The inference timeline of a report's median pass as a Plotly figure, for users who embed or export it.

The viewer keeps drawing its own canvas timeline (5,000 layers in under a second, where Plotly's bundle alone costs
seconds, see shared/BROWSER.md); this figure is built as data on demand (`ReportViewer.figures()["timeline"]`,
`timeline_figure(report)`): one row per stream, overhead (copies, reformats, gaps) in its own colour, the GPU metric
series as subplots below sharing the time axis, and each bar's hover giving the layer's figures.
"""

from __future__ import annotations

from typing import Any

from dld_jupyter.report_format.model import Layer, Report, TimelineEvent

LAYER_COLOUR = "#0072B2"  # Okabe-Ito blue, as the viewer and the HTML export
OVERHEAD_COLOUR = "#E69F00"  # Okabe-Ito orange: overhead drawn apart (seed 000 "Inference Timeline")


def _hover(event: TimelineEvent, layer: Layer | None, pass_ms: float) -> str:
    if layer is None:
        return f"{event.name}<br>{event.duration_ms:.4f} ms"
    share = 100.0 * layer.median_ms / pass_ms if pass_ms > 0 else 0.0
    lines = [
        f"<b>{layer.name}</b> ({layer.type})",
        f"{layer.median_ms:.4f} ms in the median pass ({share:.1f} % of it)",
        f"mean {layer.mean_ms:.4f} · min {layer.min_ms:.4f} · max {layer.max_ms:.4f} ms",
    ]
    if layer.ci_ms:
        lines.append(f"95% CI of its median {layer.ci_ms[0]:.4f}-{layer.ci_ms[1]:.4f} ms")
    if layer.precision != "N/A":
        lines.append(f"precision {layer.precision}")
    if layer.onnx_nodes:
        shown = ", ".join(layer.onnx_nodes[:4]) + (
            f" (+{len(layer.onnx_nodes) - 4})" if len(layer.onnx_nodes) > 4 else ""
        )
        lines.append(f"ONNX: {shown}")
    return "<br>".join(lines)


def _bars(report: Report, overhead: bool) -> dict[str, list[Any]]:
    pass_ms = report.summary.profiled_median_ms or report.summary.median_ms
    bars: dict[str, list[Any]] = {"base": [], "x": [], "y": [], "text": []}
    for event in report.timeline:
        if event.overhead != overhead:
            continue
        layer = report.layers[event.layer] if 0 <= event.layer < len(report.layers) else None
        bars["base"].append(event.start_ms)
        bars["x"].append(event.duration_ms)
        bars["y"].append(f"stream {event.stream}")
        bars["text"].append(_hover(event, layer, pass_ms))
    return bars


def timeline_figure(report: Report, title: str = "") -> Any:
    """The median pass: layers as bars per stream, overhead apart, GPU metrics as linked rows below."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    metrics = [m for m in report.gpu_metrics if m.values]
    rows = 1 + len(metrics)
    heights = [0.6] + [0.4 / len(metrics)] * len(metrics) if metrics else [1.0]
    figure = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.03,
        row_heights=heights,
        subplot_titles=["Median pass", *(f"{m.label} ({m.unit}, {len(m.values)} samples)" for m in metrics)],
    )
    for overhead, name, colour in ((False, "layers", LAYER_COLOUR), (True, "overhead", OVERHEAD_COLOUR)):
        bars = _bars(report, overhead)
        if not bars["x"]:
            continue
        figure.add_trace(
            go.Bar(
                name=name,
                orientation="h",
                base=bars["base"],
                x=bars["x"],
                y=bars["y"],
                marker_color=colour,
                hovertext=bars["text"],
                hoverinfo="text",
                marker_line_width=0,
            ),
            row=1,
            col=1,
        )
    for index, series in enumerate(metrics, start=2):
        figure.add_trace(
            go.Scatter(
                name=series.label,
                x=series.times_ms,
                y=series.values,
                mode="lines+markers",
                line_shape="hv",
                hovertemplate="%{y:.1f} " + series.unit + " at %{x:.2f} ms<extra>" + series.label + "</extra>",
            ),
            row=index,
            col=1,
        )
    figure.update_layout(
        title=title or f"Inference timeline - {report.summary.model}",
        barmode="overlay",
        template="plotly_white",
        height=320 + 140 * len(metrics),
        legend={"orientation": "h"},
    )
    figure.update_yaxes(autorange="reversed", row=1, col=1)
    figure.update_xaxes(title_text="ms from the start of the median pass", row=rows, col=1)
    return figure
