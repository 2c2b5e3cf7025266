"""The dashboard's panels in the standalone HTML export (reports/html_report.py puts this section in the page).

Why: the HTML page carries the same panels as the viewer's Dashboard tab, as static markup (inline SVG bars, no
script); every name goes through formats/html_text, since op and kernel names come from arbitrary models.
"""

from __future__ import annotations

from collections.abc import Sequence

from dld_jupyter.formats.html_text import Html, join, tag
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.panels import Share, dashboard
from dld_jupyter.reports.dashboard.tables import Table, kernels_table, op_type_summary, ops_table, table_html
from dld_jupyter.reports.dashboard.text import PANELS

# One colour per category on every panel, as in the viewer (js/src/widgets/report/dashboard/colours.ts).
CATEGORY = (("tensor core", "#009E73"), ("memory", "#0072B2"), ("host", "#E69F00"), ("cpu", "#E69F00"),
            ("idle", "#CC79A7"), ("other (outside", "#CC79A7"))
KERNELS_COLOUR = "#56B4E9"


def colour_for(label: str) -> str:
    lower = label.lower()
    return next((colour for word, colour in CATEGORY if word in lower), KERNELS_COLOUR)
BAR_WIDTH = 480
TABLE_ROWS = 50  # rows of each table in the page; `dld report dashboard --csv` writes all of them


def _bar(shares: Sequence[Share], with_ms: bool = True) -> Html:
    x, parts, legend = 0.0, [], []
    for share in shares:
        width = BAR_WIDTH * max(0.0, min(100.0, share.percent)) / 100.0
        colour = colour_for(share.label)
        parts.append(tag("rect", tag("title", f"{share.label}: {share.percent:.1f} %"), x=f"{x:.1f}", y="0",
                         width=f"{width:.1f}", height="16", fill=colour))
        figure = f" ({share.ms:.3f} ms)" if with_ms else ""
        legend.append(tag("li", tag("span", "■", style=f"color:{colour}"), f" {share.label}: {share.percent:.1f} %"
                          f"{figure}"))
        x += width
    return join([tag("svg", *parts, width=BAR_WIDTH, height="16", role="img"), tag("ul", *legend)])


def _table(table: Table, limit: int = TABLE_ROWS) -> Html:
    more = tag("p", f"{len(table.rows) - limit} more rows: dld report dashboard REPORT --csv FILE --table "
               f"{table.name} writes them all") if len(table.rows) > limit else Html("")
    return join([table_html(table, limit), more])


def _pairs(rows: Sequence[tuple[str, str]]) -> Html:
    return tag("dl", *(join([tag("dt", k), tag("dd", v)]) for k, v in rows))


def dashboard_html(report: Report) -> Html:
    """The Dashboard section: panels (or why each is absent), iterations, top ops, tables, system, guidance."""
    board = dashboard(report)
    parts: list[Html] = [tag("h3", "Performance Summary"), _pairs(board.summary)]
    for title, shares, extra in (("GPU Utilization", board.utilization, board.utilization_source),
                                 ("Resource Usage Breakdown", board.breakdown, ""),
                                 ("Total Kernel GPU Time", board.kernel_time, "")):
        if shares:  # utilization in % only: NVML's samples give no time
            bar = _bar(shares, title != "GPU Utilization")
            parts += [tag("h3", title), bar, tag("p", extra) if extra else Html("")]
    if board.kernels and "idle" not in board.absent:
        parts += [tag("h3", "GPU Idle Time"), _pairs([
            ("Host-bound (GPU waits for launches)", f"{board.idle_ms('host'):.3f} ms"),
            ("GPU-bound (queued work waits)", f"{board.idle_ms('gpu'):.3f} ms")])]
    reasons: dict[str, list[str]] = {}
    for key, title in PANELS:
        if key in board.absent:
            reasons.setdefault(board.absent[key], []).append(title)
    if reasons:
        parts += [tag("h3", "Not shown"),
                  tag("ul", *(tag("li", tag("b", ", ".join(t)), f": {why}") for why, t in reasons.items()),
                      class_="absent")]
    its = [(str(i.index) + (" (median)" if i.median else ""), "-" if i.duration_ms is None else f"{i.duration_ms:.3f}",
            "yes" if i.in_range else "no", "" if i.gpu_ms is None else f"{i.gpu_ms:.3f}") for i in board.iterations]
    parts += [tag("h3", "Iterations"),
              _table(Table("iterations", ("Iteration", "Duration ms", "Counted", "GPU ms"), list(its)))]
    if board.top_ops is not None:
        parts += [tag("h3", f"Top 10 Ops by {board.top_ops_time}"), _table(board.top_ops)]
    ops = ops_table(report, board.kernels, board.range)
    parts += [tag("h3", "Op Type Summary"), _table(op_type_summary(ops))]
    if board.kernels:
        parts += [tag("h3", "Kernels"), _table(kernels_table(report, board.kernels, board.range))]
    parts += [tag("h3", "System Configuration (dashboard)"), _pairs(board.system),
              tag("h3", "Guidance"), tag("ul", *(tag("li", g) for g in board.guidance))]
    return tag("section", *parts, id="dashboard")
