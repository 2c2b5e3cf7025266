"""A standalone HTML page of a report: summary, the dashboard's panels, recommendations, timeline, time per type,
precision per type, layer table and system configuration.

Self-contained on purpose (no CDN, no script, no external URL): it opens offline, in a mail attachment or on a
locked-down host. Charts are inline SVG (no xmlns needed inside HTML5). Every piece of report text goes through
the one escaping helper (`formats/html_text.text`), since layer names come from arbitrary models.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from dld_jupyter.formats.html_text import text
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.bars_svg import baselines_html
from dld_jupyter.reports.dashboard.html import dashboard_html
from dld_jupyter.reports.recommendations import recommend
from dld_jupyter.reports.stats import precision_by_type, time_by_type
from dld_jupyter.reports.summary_text import median_text, optional_rows, ran_on
from dld_jupyter.reports.table import columns, rows

LAYER_COLOUR = "#0072B2"  # Okabe-Ito blue
OVERHEAD_COLOUR = "#E69F00"  # Okabe-Ito orange: overhead drawn apart (seed 000 "Inference Timeline")
WIDTH = 960

_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; } dt { font-weight: 600; }
.warning { color: #a33; } svg text { font: 11px system-ui, sans-serif; fill: #222; }
pre { background: #f7f7f7; padding: 8px; overflow-x: auto; }
"""


def _e(value: object) -> str:
    return text(value)


def _summary(report: Report) -> str:
    s = report.summary
    items = [
        ("Network Name", s.model),
        ("Model Path", s.model_path or "(not given)"),
        ("Backend", s.backend),
        *ran_on(report),
        ("Median Network Inference Time", median_text(s)),
        ("# Inference Passes", s.passes),
        ("Spread", f"min {s.min_ms:.4f} / p90 {s.p90_ms:.4f} / max {s.max_ms:.4f} ms"),
        ("Stable", "yes" if s.stable else f"no: {s.stability_note}"),
    ]
    items += optional_rows(s)
    items.append(("Created", s.created))
    return "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items) + "</dl>"


def _recommendations(report: Report) -> str:
    found = recommend(report)
    if not found:
        return "<p>No issue detected.</p>"
    cells = "".join(
        f'<tr><td class="{_e(r.severity)}">{_e(r.severity)}</td><td>{_e(r.problem)}</td><td>{_e(r.advice)}</td></tr>'
        for r in found
    )
    return f"<table><tr><th>Severity</th><th>Problem</th><th>Recommendation</th></tr>{cells}</table>"


def timeline_svg(report: Report, width: int = WIDTH) -> str:
    """One row per stream, layers as bars, overhead in its own colour; a <title> on each bar for hover."""
    events = report.timeline
    if not events:
        return "<p>No timeline in this report.</p>"
    streams = sorted({e.stream for e in events})
    row_of = {s: i for i, s in enumerate(streams)}
    start = min(e.start_ms for e in events)
    end = max(e.start_ms + e.duration_ms for e in events)
    span = end - start or 1.0
    left, row_h, axis_h = 70, 26, 22
    plot_w = width - left - 10
    height = len(streams) * row_h + axis_h
    parts = [f'<svg width="{width}" height="{height}" role="img" aria-label="Inference timeline">']
    for s, i in row_of.items():
        parts.append(f'<text x="4" y="{i * row_h + 17}">Stream {s}</text>')
    for e in events:
        x = left + (e.start_ms - start) / span * plot_w
        w = max(e.duration_ms / span * plot_w, 0.5)  # keep zero-time layers visible as hairlines
        colour = OVERHEAD_COLOUR if e.overhead else LAYER_COLOUR
        label = f"{e.name}: {e.duration_ms:.4f} ms at {e.start_ms:.4f} ms"
        parts.append(
            f'<rect x="{x:.2f}" y="{row_of[e.stream] * row_h + 4}" width="{w:.2f}" height="{row_h - 8}" '
            f'fill="{colour}" stroke="#fff" stroke-width="0.3"><title>{_e(label)}</title></rect>'
        )
    y = len(streams) * row_h + 14
    for k in range(6):
        t = start + span * k / 5
        parts.append(f'<text x="{left + plot_w * k / 5:.1f}" y="{y}" text-anchor="middle">{t:.3f} ms</text>')
    parts.append("</svg>")
    legend = (
        f'<p><span style="color:{LAYER_COLOUR}">&#9632;</span> layer '
        f'<span style="color:{OVERHEAD_COLOUR}">&#9632;</span> overhead (reformat, copy, NoOp, H2D/D2H)</p>'
    )
    return "".join(parts) + legend


def type_bars_svg(report: Report, width: int = WIDTH) -> str:
    """Average latency per layer type (seed 000 "Network Graphs"), slowest first, value in ms and %."""
    types = time_by_type(report)
    if not types:
        return "<p>No layers.</p>"
    left, bar_h = 220, 20
    plot_w = width - left - 170
    top = max(t.mean_ms for t in types) or 1.0
    parts = [
        f'<svg width="{width}" height="{len(types) * bar_h + 8}" role="img" '
        'aria-label="Average latency per layer type">'
    ]
    for i, t in enumerate(types):
        y = i * bar_h + 4
        w = max(t.mean_ms / top * plot_w, 0.5)
        name = t.type if len(t.type) <= 32 else t.type[:31] + "…"
        parts.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{_e(name)}</text>')
        parts.append(
            f'<rect x="{left}" y="{y}" width="{w:.2f}" height="{bar_h - 4}" fill="{LAYER_COLOUR}">'
            f"<title>{_e(t.type)}: mean {t.mean_ms:.4f} ms over {t.count} layer(s)</title></rect>"
        )
        parts.append(
            f'<text x="{left + w + 6:.2f}" y="{y + 13}">{t.mean_ms:.4f} ms ({t.mean_percent:.2f}%) x{t.count}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _precision_table(report: Report) -> str:
    cells = "".join(
        f"<tr><td>{_e(t.type)}</td><td class='num'>{t.count}</td>"
        f"<td>{_e(', '.join(f'{p}: {n}' for p, n in t.precisions))}</td></tr>"
        for t in precision_by_type(report)
    )
    return f"<table><tr><th>Type</th><th>Layers</th><th>Precisions</th></tr>{cells}</table>"


def _layer_table(report: Report) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in columns(report))
    numeric = {0, len(columns(report)) - 2, len(columns(report)) - 1}
    body = []
    for cells in rows(report):
        shown = [f"{float(c):.4f}" if i >= len(cells) - 2 else c for i, c in enumerate(cells)]
        body.append(
            "<tr>"
            + "".join(
                f"<td class='num'>{_e(c)}</td>" if i in numeric else f"<td>{_e(c)}</td>" for i, c in enumerate(shown)
            )
            + "</tr>"
        )
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def to_html(report: Report, baselines: Sequence[int] = ()) -> str:
    """The whole page as one string; `baselines`: layer positions shown in a Layer Baselines section, each in its
    colour (the viewer's Add Baseline)."""
    s = report.summary
    title = f"{s.model}: {s.backend} profile"
    system = json.dumps(report.system, indent=2, ensure_ascii=False, sort_keys=True) if report.system else "{}"
    sections = [
        ("Network Summary", _summary(report)),
        ("Dashboard", dashboard_html(report)),
        ("Recommendations", _recommendations(report)),
        *((("Layer Baselines", baselines_html(report, baselines)),) if baselines else ()),
        ("Inference Timeline (median pass)", timeline_svg(report)),
        ("Average Latency per Layer Type", type_bars_svg(report)),
        ("Precision per Layer Type", _precision_table(report)),
        (f"Layers ({len(report.layers)})", _layer_table(report)),
        ("System Configuration", f"<pre>{_e(system)}</pre>"),
    ]
    body = "".join(f"<h2>{_e(name)}</h2>{content}" for name, content in sections)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{_e(title)}</h1>{body}</body></html>\n"
    )
