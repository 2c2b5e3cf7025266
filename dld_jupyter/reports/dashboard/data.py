"""The dashboard as JSON-ready data (the viewer's Dashboard tab reads it: js/src/widgets/report/dashboard/).

Why: the browser recomputes nothing about GPUs; it draws these panels and tables, and asks the kernel again when the
user moves the aggregation range (the `dashboard` request of the report viewer).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.kernels import median_pass
from dld_jupyter.reports.dashboard.panels import Dashboard, Share, dashboard
from dld_jupyter.reports.dashboard.tables import Table, kernels_table, op_type_summary, ops_table


def _shares(shares: list[Share]) -> list[dict[str, Any]]:
    return [asdict(s) for s in shares]


def table_data(table: Table) -> dict[str, Any]:
    return {"name": table.name, "columns": list(table.columns), "rows": [list(row) for row in table.rows]}


def dashboard_data(report: Report, start: int | None = None, stop: int | None = None) -> dict[str, Any]:
    """Panels, tables and per-kernel rows of `report` over passes start..stop."""
    board: Dashboard = dashboard(report, start, stop)
    ops = ops_table(report, board.kernels, board.range)
    return {
        "title": board.title,
        "range": [board.range.start, board.range.stop],
        "passes": len(report.passes_ms),
        "median_pass": median_pass(report),
        "warmup_passes": board.warmup_passes,
        "has_kernels": bool(board.kernels),
        "summary": [list(row) for row in board.summary],
        "system": [list(row) for row in board.system],
        "utilization": _shares(board.utilization),
        "utilization_source": board.utilization_source,
        "breakdown": _shares(board.breakdown),
        "kernel_time": _shares(board.kernel_time),
        "tc_efficiency": board.tc_efficiency,
        "idle": {"host_ms": board.idle_ms("host"), "gpu_ms": board.idle_ms("gpu"),
                 "host_gaps": sum(g.bound == "host" for g in board.idle),
                 "gpu_gaps": sum(g.bound == "gpu" for g in board.idle)},
        "iterations": [asdict(i) for i in board.iterations],
        "top_ops": table_data(board.top_ops) if board.top_ops else None,
        "top_ops_time": board.top_ops_time,
        "recommendations": [asdict(r) for r in board.recommendations],
        "guidance": list(board.guidance),
        "absent": board.absent,
        "tables": {
            "op_types": table_data(op_type_summary(ops)),
            "ops": table_data(ops),
            "kernels": table_data(kernels_table(report, board.kernels, board.range)),
        },
        # every GPU activity (Kernels by Op and by iteration filter these in the browser)
        "kernel_rows": {
            "columns": ["layer", "name", "pass", "start_ms", "duration_ms", "tensor_core", "memory", "grid", "block"],
            "rows": [[k.layer, k.name, k.pass_index if k.pass_index is not None else median_pass(report),
                      k.start_ms, k.duration_ms, k.tensor_core, k.kind != "kernel", k.grid, k.block]
                     for k in board.kernels],
        },
    }
