"""The layer table as text cells (seed 000 "Network Metrics and Layer Table") for CSV, HTML and the CLI.

Columns follow the seed: #, Name, Type, Input Dimensions, Output Dimensions, Execution Provider (ONNX Runtime
reports only), Precision, Inference Time (%), Inference Time (ms).
"""

from __future__ import annotations

from collections.abc import Sequence

from dld_jupyter.report_format.capabilities import PROVIDER
from dld_jupyter.report_format.model import Layer, Report
from dld_jupyter.reports.stats import format_dims, percentages

BASE_COLUMNS = ("#", "Name", "Type", "Input Dimensions", "Output Dimensions")
TIME_COLUMNS = ("Inference Time (%)", "Inference Time (ms)")


def shows_provider(report: Report) -> bool:
    """The Execution Provider column exists for reports whose layers name one (ONNX Runtime; TensorRT has none)."""
    return report.capabilities.has(PROVIDER)


def columns(report: Report) -> tuple[str, ...]:
    middle = ("Execution Provider", "Precision") if shows_provider(report) else ("Precision",)
    return BASE_COLUMNS + middle + TIME_COLUMNS


def row(report: Report, layer: Layer, percent: float) -> list[str]:
    """One table row as text; times keep full precision (repr) so a CSV reads back to the report's numbers."""
    cells = [
        str(layer.index),
        layer.name,
        layer.type,
        format_dims(layer.input_dims),
        format_dims(layer.output_dims),
    ]
    if shows_provider(report):
        cells.append(layer.provider)
    cells += [layer.precision, repr(float(percent)), repr(float(layer.median_ms))]
    return cells


def rows(report: Report, layers: Sequence[Layer] | None = None, full_pass: bool = False) -> list[list[str]]:
    """Rows for `layers` (default all); `full_pass`: percentages of the pass time, not of the layer sum."""
    chosen = report.layers if layers is None else layers
    shares = percentages(report, chosen, full_pass)
    return [row(report, layer, pct) for layer, pct in zip(chosen, shares, strict=True)]


class LayerTable:
    """Every layer's cells, formatted once; then rows for any selection (a filter keystroke) cost O(selection).

    Formatting 5,000 rows (dimensions, numbers) takes tens of ms; a keystroke should not pay it again.
    """

    def __init__(self, report: Report, full_pass: bool = False) -> None:
        self.columns = columns(report)
        self.full_pass = full_pass
        self._rows = rows(report, None, full_pass)

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self, positions: Sequence[int] | None = None) -> list[list[str]]:
        """Rows at `positions` in report.layers (all when None); the lists are shared, do not change them."""
        return list(self._rows) if positions is None else [self._rows[p] for p in positions]
