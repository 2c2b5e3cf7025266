"""The report viewer's Dashboard tab data (js/src/widgets/report/dashboard/ draws it): one report's panels and
tables over the aggregation range the user sets, or for a comparison one column per report and the GPUs view.

Why a module: the viewer widget only holds the traits; what the tab shows is computed by reports/dashboard/, and
this module picks which of it a viewer of one or several reports needs, and the tab it opens on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dld_jupyter.report_format.capabilities import PROVIDER
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.data import dashboard_data, table_data
from dld_jupyter.reports.dashboard.kernels import kernels_of, ran_on_gpu
from dld_jupyter.reports.dashboard.many import compare_dashboard, gpus_view

TABS = ("dashboard", "layers")


def default_tab(reports: Sequence[Report]) -> str:
    """The Dashboard for an ONNX Runtime GPU run (CUDA, TensorRT EP) or a report with kernel records; the layer
    view for CPU runs and TensorRT engine profiles (their per-layer GPU times are the table's)."""
    if not reports:
        return "layers"
    first = reports[0]
    onnxruntime_gpu = first.capabilities.has(PROVIDER) and ran_on_gpu(first)  # ORT on CUDA or TensorRT EP
    return "dashboard" if onnxruntime_gpu or kernels_of(first) else "layers"


def tab_data(reports: Sequence[Report], labels: Sequence[str], chosen: Sequence[int]) -> dict[str, Any]:
    """The tab's payload; `chosen` is [start, stop] of the first report's passes, or [] for all of them."""
    if not reports:
        return {}
    if len(reports) > 1:
        return {"compare": table_data(compare_dashboard(reports, labels)),
                "gpus": table_data(gpus_view(labels, reports))}
    if chosen and len(chosen) != 2:
        raise ValueError(f"dashboard range: give [start, stop] (0-based passes) or [], not {list(chosen)}")
    start, stop = (chosen[0], chosen[1]) if chosen else (None, None)
    return dashboard_data(reports[0], start, stop)


def table_csv_text(report: Report, table: str, chosen: Sequence[int]) -> str:
    """A Dashboard table ("op_types", "ops", "kernels") of `report` over the passes `chosen` (all when empty), as CSV
    (the tab's Export CSV writes the rows it shows)."""
    from dld_jupyter.reports.dashboard.table_csv import table_csv
    from dld_jupyter.reports.dashboard.text import named_table

    return table_csv(named_table(report, table, *(chosen if chosen else (None, None))))
