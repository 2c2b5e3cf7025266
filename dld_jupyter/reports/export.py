"""Exports of a report: the layer table as CSV, the timeline as a Chrome-trace/Perfetto JSON, a standalone HTML.

The HTML page is built in `html_report` (it is larger); `to_html`/`write_html` are re-exported here so callers
find every export in one place. Writers are atomic (see io.atomic_write_text: a private mkstemp file beside the
target, fsync, rename); CSV cells are quoted against formula injection (see csv_cell).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.io import atomic_write_text
from dld_jupyter.report_format.model import Layer, Report
from dld_jupyter.reports.html_report import to_html
from dld_jupyter.reports.table import columns, rows

__all__ = ["csv_cell", "to_csv", "to_html", "to_trace", "write_csv", "write_html", "write_trace"]

Pathish = str | os.PathLike[str]


# OWASP "CSV injection": a cell starting with one of these is a formula in Excel, LibreOffice and Google Sheets.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(text: str) -> str:
    """`text` made inert for spreadsheets: a leading single quote when it would start a formula.

    Plain numbers such as "-0.5" stay numbers (a spreadsheet reads them as values, not formulas); a layer name
    such as "=HYPERLINK(...)" or "@SUM(A1)" (names come from the model, i.e. from whoever wrote it) becomes text.
    """
    if text.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def to_csv(report: Report, layers: Sequence[Layer] | None = None, full_pass: bool = False) -> str:
    """The layer table (seed 000 columns) as CSV text; `layers` limits it (e.g. to the filtered rows).

    Every cell goes through `csv_cell`, so a hostile layer name cannot run as a formula when the file is opened.
    With "\n" line ends the csv module does not quote a field holding "\r" (which then splits the row when read
    back), so a row with one is written fully quoted.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    quoted = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow([csv_cell(c) for c in columns(report)])
    for cells in rows(report, layers, full_pass):
        safe = [csv_cell(c) for c in cells]
        (quoted if any("\r" in c for c in safe) else writer).writerow(safe)
    return buffer.getvalue()


def write_csv(report: Report, path: Pathish, layers: Sequence[Layer] | None = None, full_pass: bool = False) -> Path:
    return atomic_write_text(path, to_csv(report, layers, full_pass))


def _us(ms: float) -> float:
    return round(ms * 1000.0, 3)  # trace timestamps are µs; keep ns resolution, drop float noise


def to_trace(report: Report) -> dict[str, Any]:
    """The median pass as a Chrome trace (loadable in ui.perfetto.dev and chrome://tracing).

    One process for the report, one thread per stream with the layers as complete ("X") events, and one
    counter ("C") track per GPU metric. Event args carry the layer's type, precision, provider and ONNX nodes.
    With kernel records, the GPU rows (`_gpu_rows`): the median pass's kernels, copies and sets per CUDA stream.
    """
    pid = 1
    s = report.summary
    events: list[dict[str, Any]] = [
        {
            "ph": "M",
            "pid": pid,
            "tid": 0,
            "name": "process_name",
            "args": {"name": f"{s.model} ({s.backend}, {s.provider})"},
        },
    ]
    streams = sorted({e.stream for e in report.timeline} | {0})
    for stream in streams:
        events.append(
            {"ph": "M", "pid": pid, "tid": stream, "name": "thread_name", "args": {"name": f"Stream {stream}"}}
        )
        events.append(
            {"ph": "M", "pid": pid, "tid": stream, "name": "thread_sort_index", "args": {"sort_index": stream}}
        )
    for event in report.timeline:
        args: dict[str, Any] = {"overhead": event.overhead}
        if 0 <= event.layer < len(report.layers):
            layer = report.layers[event.layer]
            args.update(
                index=layer.index,
                type=layer.type,
                precision=layer.precision,
                provider=layer.provider,
                onnx_nodes=layer.onnx_nodes,
                percent=round(layer.percent, 4),
            )
        events.append(
            {
                "ph": "X",
                "pid": pid,
                "tid": event.stream,
                "name": event.name,
                "cat": "overhead" if event.overhead else "layer",
                "ts": _us(event.start_ms),
                "dur": _us(event.duration_ms),
                "args": args,
            }
        )
    events += _gpu_rows(report, pid)
    for series in report.gpu_metrics:
        key = f"{series.label} ({series.unit})" if series.unit else series.label
        for t, v in zip(series.times_ms, series.values, strict=False):
            events.append({"ph": "C", "pid": pid, "name": series.label, "ts": _us(t), "args": {key: v}})
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "model": s.model,
            "backend": s.backend,
            "provider": s.provider,
            "device": s.device,
            "median_ms": s.median_ms,
            "passes": s.passes,
            "timeline": str(s.settings.get("timeline", "median pass")),
        },
    }


def _gpu_rows(report: Report, pid: int) -> list[dict[str, Any]]:
    """Chrome trace's GPU rows: a "GPU" process beside the host's, a thread per CUDA stream holding the median
    pass's kernels, memcpy and memset as complete events (the .pftrace export's slices and args), and a flow
    ("s" → "f") from each host call to every kernel it launched."""
    from dld_jupyter.reports.perfetto import host_and_gpu_slices

    host, gpu = host_and_gpu_slices(report, lambda ms: round(ms * 1e6))
    if not gpu:
        return []
    gpu_pid = pid + 1
    device = report.summary.device or "GPU"
    rows: list[dict[str, Any]] = [{"ph": "M", "pid": gpu_pid, "tid": 0, "name": "process_name",
                                   "args": {"name": f"GPU: {device}"}},
                                  {"ph": "M", "pid": gpu_pid, "tid": 0, "name": "process_sort_index",
                                   "args": {"sort_index": 1}}]
    for name, slices in sorted(gpu.items()):
        tid = int(name.rsplit(" ", 1)[1])
        rows.append({"ph": "M", "pid": gpu_pid, "tid": tid, "name": "thread_name", "args": {"name": name}})
        for piece in slices:
            rows.append({"ph": "X", "pid": gpu_pid, "tid": tid, "name": piece.name, "cat": piece.category,
                         "ts": piece.start_ns / 1000, "dur": (piece.end_ns - piece.start_ns) / 1000,
                         "args": piece.args})
            rows += [{"ph": "f", "bp": "e", "id": flow, "pid": gpu_pid, "tid": tid, "name": "launch",
                      "cat": "launch", "ts": piece.start_ns / 1000} for flow in piece.ends_flows]
    for name, slices in host.items():
        tid = int(name.rsplit(" ", 1)[1])
        rows += [{"ph": "s", "id": flow, "pid": pid, "tid": tid, "name": "launch", "cat": "launch",
                  "ts": piece.start_ns / 1000} for piece in slices for flow in piece.flows]
    return rows


def write_trace(report: Report, path: Pathish) -> Path:
    return atomic_write_text(path, json.dumps(to_trace(report), ensure_ascii=False))


def write_html(report: Report, path: Pathish, baselines: Sequence[int] = ()) -> Path:
    return atomic_write_text(path, to_html(report, baselines))
