"""The status report a finished tool shows (seed 000: "a dialog box will show the status ... with an expandable
section containing detailed logs"): a headline, summary rows, the output comparison table, and the log folded
in an accordion.

The comparison table is issue 20's addition: per output the largest absolute and relative difference between the
original and the transformed model on the same random inputs, outputs that went non-finite flagged in red.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as w

from dld_jupyter.transforms.compare import Comparison

CELL = "padding:2px 10px;border-bottom:1px solid var(--jp-border-color2,#ddd);text-align:left"
BAD = "color:#b91c1c;font-weight:bold"


def comparison_table(comparison: Comparison | None, atol: float | None = None) -> str:
    """HTML of the per-output differences (empty when no comparison was asked)."""
    if comparison is None:
        return ""
    seed = f"same random inputs (seed {comparison.seed})"
    if comparison.error:
        text = html.escape(comparison.error)
        return f'<div class="dld-tool-compare" style="{BAD}">Output comparison failed: {text}</div>'
    rows = []
    for o in comparison.outputs:
        if o.error:
            rows.append(f'<tr><td style="{CELL}">{html.escape(o.name)}</td><td colspan="4" style="{CELL};{BAD}">'
                        f"{html.escape(o.error)}</td></tr>")
            continue
        flag = f'<span style="{BAD}">{o.nonfinite:,} non-finite</span>' if o.went_nonfinite else "finite"
        within = "" if atol is None else ("✓" if o.within(atol) else f'<span style="{BAD}">✗</span>')
        rows.append(
            f'<tr data-output="{html.escape(o.name)}"><td style="{CELL}">{html.escape(o.name)}</td>'
            f'<td style="{CELL}">{list(o.shape)}</td><td style="{CELL}">{o.max_abs:.3g}</td>'
            f'<td style="{CELL}">{o.max_rel:.3g}</td><td style="{CELL}">{flag} {within}</td></tr>'
        )
    titles = ("Output", "Shape", "Max abs diff", "Max rel diff", "Values")
    head = "".join(f'<th style="{CELL}">{h}</th>' for h in titles)
    return (
        f'<div class="dld-tool-compare"><b>Output comparison</b> <small>(onnxruntime CPU, {seed})</small>'
        f'<table style="border-collapse:collapse;font-size:12px"><tr>{head}</tr>{"".join(rows)}</table></div>'
    )


def summary_html(headline: str, rows: Sequence[tuple[str, str]], ok: bool = True) -> str:
    colour = "#15803d" if ok else "#b45309"
    body = "".join(
        f'<tr><td style="{CELL};font-weight:600">{html.escape(k)}</td><td style="{CELL}">{html.escape(v)}</td></tr>'
        for k, v in rows
    )
    return (
        f'<div class="dld-tool-summary"><div style="color:{colour};font-weight:bold">{html.escape(headline)}</div>'
        f'<table style="border-collapse:collapse;font-size:12px">{body}</table></div>'
    )


def log_section(lines: Sequence[str], title: str = "Log") -> w.Accordion:
    """The expandable log, folded; its text area keeps every line (selectable, copyable)."""
    text = w.Textarea(value="\n".join(lines), disabled=True, layout=w.Layout(width="100%", height="220px"))
    text.add_class("dld-tool-log")
    section = w.Accordion(children=[text], selected_index=None, layout=w.Layout(width="100%"))
    section.set_title(0, f"{title} ({len(lines):,} lines)")
    section.add_class("dld-tool-log-section")
    return section


def status_view(
    headline: str,
    rows: Sequence[tuple[str, str]],
    log: Sequence[str],
    comparison: Comparison | None = None,
    ok: bool = True,
    atol: float | None = None,
) -> w.VBox:
    parts: list[w.Widget] = [w.HTML(summary_html(headline, rows, ok))]
    table = comparison_table(comparison, atol)
    if table:
        parts.append(w.HTML(table))
    parts.append(log_section(log))
    box = w.VBox(parts, layout=w.Layout(width="100%"))
    box.add_class("dld-tool-status")
    return box
