"""The status report a finished tool shows (seed 000: "a dialog box will show the status ... with an expandable
section containing detailed logs"): a headline, summary rows, the output comparison table, and the log folded
in an accordion.

The comparison table is issue 20's addition: per output the largest absolute and relative difference between the
original and the transformed model on the same random inputs, outputs that went non-finite flagged in red.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as w

from dld_jupyter.formats.html_text import Html, bold, join, small, tag
from dld_jupyter.transforms.compare import Comparison

CELL = "padding:2px 10px;border-bottom:1px solid var(--jp-border-color2,#ddd);text-align:left"
BAD = "color:#b91c1c;font-weight:bold"


def comparison_table(comparison: Comparison | None, atol: float | None = None) -> Html:
    """HTML of the per-output differences (empty when no comparison was asked)."""
    if comparison is None:
        return Html("")
    seed = f"same random inputs (seed {comparison.seed})"
    if comparison.error:
        return tag("div", "Output comparison failed: ", comparison.error, class_="dld-tool-compare", style=BAD)
    rows = []
    for o in comparison.outputs:
        if o.error:
            rows.append(tag("tr", tag("td", o.name, style=CELL), tag("td", o.error, colspan=4, style=f"{CELL};{BAD}")))
            continue
        flag = tag("span", f"{o.nonfinite:,} non-finite", style=BAD) if o.went_nonfinite else "finite"
        within = "" if atol is None else ("✓" if o.within(atol) else tag("span", "✗", style=BAD))
        cells = (o.name, list(o.shape), f"{o.max_abs:.3g}", f"{o.max_rel:.3g}", join([flag, within], " "))
        rows.append(tag("tr", *(tag("td", cell, style=CELL) for cell in cells), data_output=o.name))
    titles = ("Output", "Shape", "Max abs diff", "Max rel diff", "Values")
    head = tag("tr", *(tag("th", title, style=CELL) for title in titles))
    table = tag("table", head, *rows, style="border-collapse:collapse;font-size:12px")
    return tag("div", bold("Output comparison"), " ", small(f"(onnxruntime CPU, {seed})"), table,
               class_="dld-tool-compare")


def summary_html(headline: str, rows: Sequence[tuple[str, str]], ok: bool = True) -> Html:
    colour = "#15803d" if ok else "#b45309"
    body = (tag("tr", tag("td", k, style=f"{CELL};font-weight:600"), tag("td", v, style=CELL)) for k, v in rows)
    return tag("div", tag("div", headline, style=f"color:{colour};font-weight:bold"),
               tag("table", *body, style="border-collapse:collapse;font-size:12px"), class_="dld-tool-summary")


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
