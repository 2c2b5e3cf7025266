"""The dashboard as plain text (`dld report dashboard R.json`): panels, the absent ones with their reasons, tables.

Why: a terminal user gets the same panels as the viewer; the CLI only parses arguments and prints this.
"""

from __future__ import annotations

from collections.abc import Sequence

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.panels import Dashboard, Share, dashboard
from dld_jupyter.reports.dashboard.tables import Table, cell_text, kernels_table, op_type_summary, ops_table

PANELS = (("utilization", "GPU Utilization"), ("breakdown", "Resource Usage Breakdown"),
          ("kernel_time", "Total Kernel GPU Time"), ("tc_efficiency", "Tensor Core Kernel Efficiency"),
          ("idle", "GPU Idle Time (host-bound / GPU-bound)"), ("top_gpu_ops", "Top 10 GPU Ops"))
WIDTH = 60


def _short(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def table_text(table: Table, limit: int | None = None) -> str:
    rows = table.rows if limit is None else table.rows[:limit]
    cells = [list(table.columns)] + [[_short(cell_text(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(table.columns))]
    lines = ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    if limit is not None and len(table.rows) > limit:
        lines.append(f"  ... {len(table.rows) - limit} more rows")
    return "\n".join(lines)


def _shares(shares: Sequence[Share]) -> list[str]:
    return [f"  {s.label:<38} {s.ms:10.3f} ms {s.percent:6.1f} %" for s in shares]


def absent_text(board: Dashboard) -> list[str]:
    """The panels not shown, grouped by their reason (one sentence said once)."""
    reasons: dict[str, list[str]] = {}
    for key, title in PANELS:
        if key in board.absent:
            reasons.setdefault(board.absent[key], []).append(title)
    lines = ["", "Not shown"] if reasons else []
    return lines + [f"  {', '.join(titles)}: {why}" for why, titles in reasons.items()]


def dashboard_text(report: Report, start: int | None = None, stop: int | None = None, rows: int = 10) -> str:
    board: Dashboard = dashboard(report, start, stop)
    lines = [f"Dashboard: {board.title} (passes {board.range.start}..{board.range.stop} of "
             f"{len(report.passes_ms)})", "", "Performance Summary"]
    lines += [f"  {label:<32} {value}" for label, value in board.summary]
    if board.utilization:
        lines += ["", f"GPU Utilization ({board.utilization_source})"]
        lines += [f"  {s.label:<38} {s.percent:6.1f} %" for s in board.utilization]
    if board.breakdown:
        lines += ["", "Resource Usage Breakdown", *_shares(board.breakdown)]
    if board.kernel_time:
        lines += ["", "Total Kernel GPU Time", *_shares(board.kernel_time)]
    if board.kernels and "idle" not in board.absent:
        lines += ["", "GPU Idle Time",
                  f"  host-bound (the GPU waits for launches)  {board.idle_ms('host'):10.3f} ms in "
                  f"{sum(g.bound == 'host' for g in board.idle)} gaps",
                  f"  GPU-bound (queued work waits)           {board.idle_ms('gpu'):10.3f} ms in "
                  f"{sum(g.bound == 'gpu' for g in board.idle)} gaps"]
    lines += absent_text(board)
    lines += ["", f"Iterations (* counted, m median pass; the first and last {rows} and the median shown)"]
    total, hidden = len(board.iterations), 0
    for it in board.iterations:
        if rows <= it.index < total - rows and not it.median:
            hidden += 1
            continue
        if hidden:
            lines.append(f"  ... {hidden} iterations")
            hidden = 0
        mark = ("*" if it.in_range else " ") + ("m" if it.median else " ")
        gpu = "" if it.gpu_ms is None else f"  {it.kernels} kernels ({it.tc_kernels} TC) {it.gpu_ms:.3f} ms GPU"
        lines.append(f"  {mark} {it.index:4d} {it.duration_ms:10.3f} ms{gpu}")
    if board.top_ops is not None:
        lines += ["", f"Top 10 Ops by {board.top_ops_time}", table_text(board.top_ops)]
    ops = ops_table(report, board.kernels, board.range)
    lines += ["", "Op Type Summary", table_text(op_type_summary(ops), rows)]
    if board.kernels:
        lines += ["", "Kernels", table_text(kernels_table(report, board.kernels, board.range), rows)]
    lines += ["", "System Configuration"] + [f"  {label:<24} {value}" for label, value in board.system]
    lines += ["", f"Recommendations ({len(board.recommendations)})"]
    lines += [f"  [{r.severity}] {r.problem}\n      {r.advice}" for r in board.recommendations]
    lines += ["", "Guidance"] + [f"  - {g}" for g in board.guidance]
    return "\n".join(lines)


def named_table(report: Report, name: str, start: int | None = None, stop: int | None = None) -> Table:
    """One of the dashboard's tables by name ("op_types", "ops", "kernels") over passes start..stop."""
    board = dashboard(report, start, stop)
    ops = ops_table(report, board.kernels, board.range)
    tables = {"ops": ops, "op_types": op_type_summary(ops),
              "kernels": kernels_table(report, board.kernels, board.range)}
    if name not in tables:
        raise ValueError(f"no dashboard table {name!r}; tables are {sorted(tables)}")
    return tables[name]
