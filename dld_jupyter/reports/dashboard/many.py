"""The dashboard over many runs: a sweep (one column per point) or a comparison (one column per report), and the
GPUs view (one row per GPU the runs used).

Why: a sweep or a comparison asks "where did each run spend its time" side by side; these tables put each run's
panel figures in a column, with an empty cell (and the reason in the last row) where a run has no such figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dld_jupyter.activities.sweep.manifest import DONE, Manifest
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.panels import Dashboard, Share, dashboard
from dld_jupyter.reports.dashboard.tables import Table

METRICS = ("Median pass ms", "GPU utilization %", "Tensor Core efficiency %", "Tensor Core kernels ms",
           "Other kernels ms", "Memory copies ms", "Host-bound idle ms", "GPU-bound idle ms", "Kernels",
           "Top op", "Not shown")


def _share(shares: Sequence[Share], label: str) -> float | None:
    return next((s.ms for s in shares if s.label.startswith(label)), None)


def _column(report: Report, board: Dashboard) -> list[Any]:
    using = next((s.percent for s in board.utilization if s.label == "Using GPU"), None)
    kernels = bool(board.kernels)
    top = board.top_ops.rows[0] if board.top_ops is not None and board.top_ops.rows else None
    reasons = sorted(set(board.absent.values()))
    return [report.summary.median_ms, using, board.tc_efficiency,
            _share(board.kernel_time, "Using Tensor Cores"), _share(board.kernel_time, "All other"),
            _share(board.kernel_time, "Memory"), board.idle_ms("host") if kernels else None,
            board.idle_ms("gpu") if kernels else None, len(board.kernels) if kernels else None,
            f"{top[1]} ({top[2]})" if top is not None else None, "; ".join(r.split(";")[0] for r in reasons) or None]


def columns_table(name: str, labels: Sequence[str], reports: Sequence[Report]) -> Table:
    """Metric rows, one column per report (its dashboard over all its measured passes)."""
    columns = [_column(r, dashboard(r)) for r in reports]
    rows = [(metric, *(col[i] for col in columns)) for i, metric in enumerate(METRICS)]
    return Table(name, ("Metric", *labels), rows)


def compare_dashboard(reports: Sequence[Report], labels: Sequence[str]) -> Table:
    """The dashboard of a comparison: one column per report, labelled as the comparison labels them."""
    if len(labels) != len(reports):
        raise ValueError(f"{len(labels)} labels for {len(reports)} reports")
    return columns_table("compare_dashboard", labels, reports)


def _finished(manifest: Manifest) -> list[tuple[str, Report]]:
    out = []
    for entry in manifest.points:
        if entry.state == DONE and entry.report:
            out.append((entry.point.id, load_report(manifest.folder / entry.report)))
    return out


def sweep_dashboard(manifest: Manifest) -> Table:
    """The dashboard of a sweep: one column per finished point (points without a report are left out)."""
    points = _finished(manifest)
    return columns_table("sweep_dashboard", [p for p, _ in points], [r for _, r in points])


GPUS = ("GPU", "Device", "Runs", "Mean GPU utilization %", "Kernel ms", "Runs without kernel records")


def gpus_view(labels: Sequence[str], reports: Sequence[Report]) -> Table:
    """One row per GPU the runs used (seed 004 "GPUs View"): how many runs, their mean utilization, kernel time.
    CPU runs are no GPU's and are left out."""
    groups: dict[tuple[int, str], list[Dashboard]] = {}
    for report in reports:
        if not report.capabilities.on_gpu:
            continue
        index = report.system.get("gpu_index", report.summary.settings.get("device", 0))
        key = (int(index) if isinstance(index, (int, float, str)) and str(index).isdigit() else 0,
               str(report.system.get("gpu") or report.summary.device))
        groups.setdefault(key, []).append(dashboard(report))
    rows = []
    for (index, device), boards in sorted(groups.items()):
        using = [s.percent for b in boards for s in b.utilization if s.label == "Using GPU"]
        kernel_ms = [sum(s.ms for s in b.kernel_time) for b in boards if b.kernels]
        rows.append((index, device, len(boards), sum(using) / len(using) if using else None,
                     sum(kernel_ms) if kernel_ms else None, sum(not b.kernels for b in boards)))
    return Table("gpus", GPUS, rows)


def sweep_gpus(manifest: Manifest) -> Table:
    points = _finished(manifest)
    return gpus_view([p for p, _ in points], [r for _, r in points])
