"""A standalone HTML page of a comparison (seed 001 "Compare Inference Reports"): the reports' summary, the
network metrics chart across reports, and the paired layers with each report's time and how they were paired.

Self-contained like html_report.py (inline SVG, no script); every name goes through the one escaping helper.
"""

from __future__ import annotations

from collections.abc import Sequence

from dld_jupyter.formats.html_text import text
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.bars_svg import grouped_bars_svg, legend_html, network_series
from dld_jupyter.reports.compare import Comparison
from dld_jupyter.reports.html_report import _STYLE


def _summary(result: Comparison) -> str:
    head = ("<tr><th></th><th>Report</th><th>Backend</th><th>Provider</th><th>Target</th><th>Median (ms)</th>"
            "<th>vs baseline</th></tr>")
    rows = []
    for i, s in enumerate(result.summaries):
        diff = "baseline" if i == result.baseline else f"{s.diff_ms:+.4f} ms" + (
            "" if s.diff_percent is None else f" ({s.diff_percent:+.1f} %)")
        rows.append(f'<tr><td><span style="color:{s.colour}">&#9632;</span></td><td>{text(s.label)}</td>'
                    f"<td>{text(s.backend)}</td><td>{text(s.provider)}</td><td>{text(s.target or '-')}</td>"
                    f"<td class='num'>{s.median_ms:.4f}</td>"
                    f"<td>{text(diff)}</td></tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _layers(result: Comparison) -> str:
    head = "<tr><th>Layer</th><th>Type</th><th>Paired</th>" + "".join(
        f"<th>{text(label)} (ms)</th>" for label in result.labels) + "</tr>"
    rows = []
    for m in result.layers:
        times = "".join("<td class='num'>-</td>" if t is None else f"<td class='num'>{t:.4f}</td>" for t in m.times_ms)
        rows.append(f"<tr><td>{text(m.name)}</td><td>{text(m.type)}</td><td>{text(m.paired)}</td>{times}</tr>")
    notes = "".join(f"<p class='warning'>{text(note)}</p>" for note in result.notes)
    return notes + f"<table>{head}{''.join(rows)}</table>"


def comparison_html(reports: Sequence[Report], result: Comparison) -> str:
    series = network_series(reports, result.labels, result.colours)
    chart = legend_html(series) + grouped_bars_svg(("median", "p90", "min", "max"), series, "Network metrics")
    title = "Comparison: " + ", ".join(result.labels)
    sections = [
        (f"Reports (baseline: {result.labels[result.baseline]})", _summary(result)),
        ("Network Metrics (pass time)", chart),
        (f"Layers ({result.matched_count} of {len(result.layers)} rows paired)", _layers(result)),
    ]
    body = "".join(f"<h2>{text(name)}</h2>{content}" for name, content in sections)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{text(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{text(title)}</h1>{body}</body></html>\n"
    )
