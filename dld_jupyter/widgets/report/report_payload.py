"""The report as the viewer's compact payload (js/src/widgets/report/data.ts reads it, same names).

Text travels as JSON; every number travels in one little-endian Float64 buffer (`ReportViewer.data`), and the JSON
holds `[offset, length]` references into it (in elements, not bytes). Repeated text columns (type, precision,
provider, dimensions) are dictionary-encoded: a list of distinct values plus a code per layer in the buffer.
Per-layer text (names, ONNX node lists) is one string joined with the ASCII unit/record separators: ipywidgets
walks every list of the state looking for buffers, and 5,000 small lists cost more than the rest of the payload.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import Comparison, colours
from dld_jupyter.reports.recommendations import recommend
from dld_jupyter.reports.stats import format_dims
from dld_jupyter.reports.summary_text import target_text

Ref = list[int]  # [offset, length] in Float64 elements of the shared buffer


class Packer:
    """Appends float columns to one Float64 buffer and hands back their references."""

    def __init__(self) -> None:
        self._values = array("d")

    def add(self, values: Iterable[float]) -> Ref:
        start = len(self._values)
        self._values.extend(values if isinstance(values, array) else array("d", list(values)))
        return [start, len(self._values) - start]

    def to_bytes(self) -> bytes:
        values = self._values
        if sys.byteorder != "little":  # Float64Array in the browser reads little-endian
            values = array("d", values)
            values.byteswap()
        return values.tobytes()


UNIT, RECORD = "\x1f", "\x1e"  # separators that never occur in ONNX or TensorRT names


def joined(texts: Iterable[str]) -> str:
    return UNIT.join(texts)


def _codes(packer: Packer, texts: Sequence[str]) -> dict[str, Any]:
    """Dictionary encoding: distinct values in first-seen order (the selection summary's tie order) + codes."""
    index: dict[str, int] = {}
    codes = array("d", [index.setdefault(text, len(index)) for text in texts])
    return {"values": list(index), "codes": packer.add(codes)}


def _dims(layers: Sequence[Any], attribute: str) -> list[str]:
    """format_dims per layer, computed once per distinct shape (layers repeat a few shapes many times)."""
    seen: dict[str, str] = {}
    out = []
    for layer in layers:
        dims = getattr(layer, attribute)
        key = repr(dims)
        text = seen.get(key)
        if text is None:
            text = seen[key] = format_dims(dims)
        out.append(text)
    return out


def _summary(report: Report) -> dict[str, Any]:
    data = asdict(report.summary)
    data["settings"] = {k: v for k, v in report.summary.settings.items() if isinstance(v, (str, int, float, bool))}
    return data


def report_payload(packer: Packer, report: Report, label: str, colour: str) -> dict[str, Any]:
    layers = report.layers
    timeline = report.timeline
    return {
        "label": label,
        "colour": colour,
        "summary": _summary(report),
        "system": {k: str(v) for k, v in report.system.items()},
        "target": target_text(report),  # where it ran, said as `dld report show` and the HTML export say it
        "removed_nodes": len(report.removed_nodes),
        "passes_ms": packer.add(report.passes_ms),
        "layers": {
            "count": len(layers),
            "name": joined(layer.name for layer in layers),
            "onnx_nodes": RECORD.join(joined(layer.onnx_nodes) for layer in layers),
            "type": _codes(packer, [layer.type for layer in layers]),
            "precision": _codes(packer, [layer.precision for layer in layers]),
            "provider": _codes(packer, [layer.provider for layer in layers]),
            "input_dims": _codes(packer, _dims(layers, "input_dims")),
            "output_dims": _codes(packer, _dims(layers, "output_dims")),
            "index": packer.add(layer.index for layer in layers),
            "stream": packer.add(layer.stream for layer in layers),
            "median_ms": packer.add(layer.median_ms for layer in layers),
            "mean_ms": packer.add(layer.mean_ms for layer in layers),
            "min_ms": packer.add(layer.min_ms for layer in layers),
            "max_ms": packer.add(layer.max_ms for layer in layers),
            "overhead": packer.add(float(layer.overhead) for layer in layers),
        },
        "timeline": {
            "count": len(timeline),
            "layer": packer.add(event.layer for event in timeline),
            "stream": packer.add(event.stream for event in timeline),
            "start_ms": packer.add(event.start_ms for event in timeline),
            "duration_ms": packer.add(event.duration_ms for event in timeline),
            "overhead": packer.add(float(event.overhead) for event in timeline),
            # Only ranges that are no layer (H2D/D2H copies) need their own label; layers use their name.
            "labels": {str(i): event.name for i, event in enumerate(timeline) if event.layer < 0},
        },
        "metrics": [
            {
                "name": series.name,
                "label": series.label,
                "unit": series.unit,
                "times_ms": packer.add(series.times_ms),
                "values": packer.add(series.values),
            }
            for series in report.gpu_metrics
        ],
        "recommendations": [asdict(r) for r in recommend(report)],
    }


def _nan(value: float | int | None, missing: float = math.nan) -> float:
    return missing if value is None else float(value)


def comparison_payload(packer: Packer, comparison: Comparison) -> dict[str, Any]:
    """Matched layers as columns: names/types as text, per report positions (-1: missing), times, diffs (NaN)."""
    matched = comparison.layers
    count = len(comparison.labels)
    return {
        "baseline": comparison.baseline,
        "summaries": [asdict(row) for row in comparison.summaries],
        "types": [asdict(row) for row in comparison.types],
        "matched_count": comparison.matched_count,  # rows present in two or more reports (the header counts these)
        "notes": comparison.notes,  # why a report was paired by names only
        "layers": {
            "count": len(matched),
            "name": joined(m.name for m in matched),
            "type": joined(m.type for m in matched),
            "paired": joined(m.paired for m in matched),  # "name" | "structure" | "unpaired"
            "positions": [packer.add(_nan(m.positions[r], -1.0) for m in matched) for r in range(count)],
            "times_ms": [packer.add(_nan(m.times_ms[r]) for m in matched) for r in range(count)],
            "diffs_ms": [packer.add(_nan(m.diffs_ms[r]) for m in matched) for r in range(count)],
        },
    }


def build_payload(
    reports: Sequence[Report], labels: Sequence[str], comparison: Comparison | None
) -> tuple[dict[str, Any], bytes]:
    """(JSON payload, binary buffer) for one report or a comparison of several."""
    packer = Packer()
    palette = comparison.colours if comparison is not None else colours(len(reports))
    payload: dict[str, Any] = {
        "version": 1,
        "reports": [report_payload(packer, r, labels[i], palette[i]) for i, r in enumerate(reports)],
        "compare": comparison_payload(packer, comparison) if comparison is not None else None,
    }
    return payload, packer.to_bytes()
