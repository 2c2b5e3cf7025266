"""The dashboard's tables (seed 004 4.2–4.5): Op Type Summary, Ops, Kernels, Kernels by Op and by iteration.

Why: the viewer, the CLI and the HTML export show the same rows; each table is plain data (columns + rows) with the
one filter, sort and CSV every front door uses. Times are milliseconds. CPU time is the op's host time in the median
pass (ONNX Runtime's per-node time); GPU time is the summed time of its kernels per counted pass (kernel records), or
the layer time for TensorRT, whose layer times are GPU times. Without either the cell is empty (None), never 0.
CSV: dashboard/table_csv.py (apart, since the export module that guards cells imports the HTML page, which shows these).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dld_jupyter.formats.html_text import Html, tag
from dld_jupyter.report_format.capabilities import DEVICE_MS, HOST_MS
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.iterations import Range, pass_of
from dld_jupyter.reports.dashboard.kernels import MEMORY, TC_ELIGIBLE, Kernel, median_pass, ran_on_gpu


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]

    def filter(self, text: str, column: str | None = None) -> Table:
        """Rows where `text` occurs (case-insensitive) in a cell, or in `column`'s; booleans match "1"/"0"."""
        needle = text.strip().lower()
        if not needle:
            return self
        cols = range(len(self.columns)) if column is None else [self._column(column)]
        keep = [row for row in self.rows if any(needle in cell_text(row[c]).lower() for c in cols)]
        return replace(self, rows=keep)

    def sort(self, column: str, descending: bool = True) -> Table:
        """Rows ordered by `column`; empty cells last either way."""
        c = self._column(column)
        present = [row for row in self.rows if row[c] is not None]
        missing = [row for row in self.rows if row[c] is None]
        present.sort(key=lambda row: (isinstance(row[c], str), row[c]), reverse=descending)
        return replace(self, rows=present + missing)

    def _repr_html_(self) -> str:
        """Shown as a table in a notebook (names escaped: they come from the model)."""
        return str(table_html(self))

    def _column(self, column: str) -> int:
        if column not in self.columns:
            raise ValueError(f"table {self.name!r} has no column {column!r}; columns are {list(self.columns)}")
        return self.columns.index(column)


def table_html(table: Table, limit: int | None = None) -> Html:
    """The table as HTML, numbers right-aligned; at most `limit` rows."""
    head = tag("tr", *(tag("th", c) for c in table.columns))
    rows = [tag("tr", *(tag("td", cell_text(c), class_="num" if isinstance(c, (int, float)) else None) for c in row))
            for row in (table.rows if limit is None else table.rows[:limit])]
    return tag("table", head, *rows, class_="dld-dashboard-table")


def cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def counted(report: Report, kernels: Sequence[Kernel], chosen: Range) -> tuple[list[Kernel], int]:
    """Kernels of the passes in range, and how many of those passes have kernel records."""
    median = median_pass(report)
    mine = [k for k in kernels if pass_of(k, median) in chosen]
    return mine, len({pass_of(k, median) for k in mine})


def _by_layer(kernels: Sequence[Kernel]) -> dict[int, list[Kernel]]:
    out: dict[int, list[Kernel]] = {}
    for k in kernels:
        out.setdefault(k.layer, []).append(k)
    return out


def _gpu_ms(report: Report, kernels: Sequence[Kernel] | None, passes: int, position: int) -> float | None:
    if report.capabilities.has(DEVICE_MS) and kernels is None:  # the layer's own GPU time (a TensorRT engine's)
        return report.layers[position].median_ms
    if kernels is None or passes == 0:
        return None
    return sum(k.duration_ms for k in kernels if k.kind != MEMORY) / passes


OPS = ("#", "Op Name", "Op Type", "Calls", "CPU ms", "GPU ms", "TC Eligible", "Using TC", "Kernel Calls", "Data Type")


def ops_table(report: Report, kernels: Sequence[Kernel], chosen: Range) -> Table:
    """One row per op (layer): CPU time in the median pass, GPU time per counted pass, Tensor Core use (left
    empty for a run with no GPU: "eligible" said yes on a CPU report, where nothing can use a Tensor Core)."""
    mine, passes = counted(report, kernels, chosen)
    gpu = ran_on_gpu(report)
    by_layer = _by_layer(mine) if kernels else None
    cpu = report.capabilities.has(HOST_MS)
    rows = []
    for i, layer in enumerate(report.layers):
        own = by_layer.get(i, []) if by_layer is not None else None
        rows.append((
            i, layer.name, layer.type, chosen.count, layer.median_ms if cpu else None,
            _gpu_ms(report, own, passes, i), layer.type in TC_ELIGIBLE if gpu else None,
            any(k.tensor_core for k in own) if own is not None else None,
            len([k for k in own if k.kind != MEMORY]) if own is not None else None, layer.precision,
        ))
    return Table("ops", OPS, rows)


def _spread(values: list[float]) -> tuple[float | None, float | None, float | None, float | None]:
    if not values:
        return None, None, None, None
    return sum(values), sum(values) / len(values), min(values), max(values)


OP_TYPES = ("Op Type", "Ops", "Calls", "Total CPU ms", "Avg CPU ms", "Min CPU ms", "Max CPU ms", "Total GPU ms",
            "Avg GPU ms", "Min GPU ms", "Max GPU ms", "Kernels")


def op_type_summary(ops: Table) -> Table:
    """Ops aggregated per op type (from the Ops table, so both always agree)."""
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for row in ops.rows:
        groups.setdefault(row[2], []).append(row)
    rows = []
    for kind, members in groups.items():
        cpu = [r[4] for r in members if r[4] is not None]
        gpu = [r[5] for r in members if r[5] is not None]
        kernels = [r[8] for r in members if r[8] is not None]
        rows.append((kind, len(members), sum(r[3] for r in members), *_spread(cpu), *_spread(gpu),
                     sum(kernels) if kernels else None))
    return Table("op_types", OP_TYPES, rows).sort("Total GPU ms" if any(r[7] for r in rows) else "Total CPU ms")


KERNELS = ("Kernel Name", "Using TC", "Calls", "GPU ms", "Avg ms", "Min ms", "Max ms", "Op Name")


def kernels_table(report: Report, kernels: Sequence[Kernel], chosen: Range,
                  keep: Callable[[Kernel], bool] = lambda _k: True) -> Table:
    """Kernels grouped by name over the counted passes, with the op that launched them ("X and N more")."""
    groups: dict[str, list[Kernel]] = {}
    for k in counted(report, kernels, chosen)[0]:
        if keep(k):
            groups.setdefault(k.name, []).append(k)
    rows = []
    for name, members in groups.items():
        times = [k.duration_ms for k in members]
        layers = list(dict.fromkeys(k.layer for k in members if 0 <= k.layer < len(report.layers)))
        op = report.layers[layers[0]].name if layers else ""
        rows.append((name, members[0].tensor_core, len(members), *_spread(times),
                     f"{op} and {len(layers) - 1} more" if len(layers) > 1 else op))
    return Table("kernels", KERNELS, rows).sort("GPU ms")


def kernels_by_op(report: Report, kernels: Sequence[Kernel], chosen: Range, position: int) -> Table:
    """The kernels one op launched (seed 004 "Kernels by Op")."""
    if not 0 <= position < len(report.layers):
        raise ValueError(f"op {position} is not one of the report's {len(report.layers)} ops (0-based)")
    return replace(kernels_table(report, kernels, chosen, lambda k: k.layer == position), name="kernels_by_op")


IN_ITERATION = ("Op Name", "Kernel Name", "Device", "Launch ms", "Start ms", "GPU ms", "Uses TC", "Grid", "Block")


def kernels_in_iteration(report: Report, kernels: Sequence[Kernel], index: int) -> Table:
    """Every GPU activity of one pass, in start order (seed 004 "Kernels in Selected Iteration")."""
    median = median_pass(report)
    rows = []
    for k in kernels:
        if pass_of(k, median) != index:
            continue
        op = report.layers[k.layer].name if 0 <= k.layer < len(report.layers) else ""
        rows.append((op, k.name, k.device, k.launch_ms, k.start_ms, k.duration_ms, k.tensor_core, k.grid, k.block))
    return Table("kernels_in_iteration", IN_ITERATION, rows)


TABLES = ("op_types", "ops", "kernels")
