"""Reading and writing report files: the one module of the report format that touches the file system.

`load_report` explains every way a file can be wrong (missing, not JSON, another format, a newer version, a
field missing or of the wrong type) with the JSON path of the problem and what the field should hold.
`save_report` writes atomically so a crash never leaves half a report where a good one was. `ReportError` lives in
`errors` (the JSON helper raises it too) and is re-exported here, where callers import it from.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any

from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.report_format.capabilities import Capabilities
from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.json_input import parse_json, read_text
from dld_jupyter.report_format.model import (
    FORMAT,
    VERSION,
    KernelRecord,
    Layer,
    MetricSeries,
    Report,
    Summary,
    TimelineEvent,
)
from dld_jupyter.report_format.validation import cross_check, validate

__all__ = ["ReportError", "atomic_write_text", "check_data", "load_report", "report_from_data", "save_report"]


_FIELDS: dict[type[Any], frozenset[str]] = {}


def _field_names(cls: type[Any]) -> frozenset[str]:
    if cls not in _FIELDS:
        _FIELDS[cls] = frozenset(f.name for f in dataclasses.fields(cls))
    return _FIELDS[cls]


def _known(cls: type[Any], data: dict[str, Any]) -> dict[str, Any]:
    # Unknown fields are ignored (not an error) so a report written by a later release of the same version,
    # which may carry extra fields, still opens.
    names = _field_names(cls)
    return data if names.issuperset(data) else {k: v for k, v in data.items() if k in names}


def check_data(data: object, source: str = "report") -> dict[str, Any]:
    """Raise ReportError naming `source` unless `data` is a valid report (format, version, schema, references)."""
    if not isinstance(data, dict):
        raise ReportError(
            f"{source}: a report is a JSON object, found a JSON {type(data).__name__}. Is this a dld report file?"
        )
    fmt = data.get("format")
    if fmt != FORMAT:
        raise ReportError(
            f'{source}: not a dld report ($.format is {json.dumps(fmt)}, expected "{FORMAT}"). '
            "Import trtexec or ONNX Runtime profiles with `dld report import-trtexec` or "
            "`dld report import-ort` first."
        )
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise ReportError(
            f"{source}: report format version {version} is newer than this dld_jupyter reads "
            f"(up to {VERSION}). Upgrade dld_jupyter to open it."
        )
    problems = validate(data) or cross_check(data)
    if problems:
        listed = "\n".join(f"  - {p}" for p in problems)
        raise ReportError(
            f"{source}: not a valid dld report ({len(problems)} problem"
            f"{'s' if len(problems) > 1 else ''}{', first shown' if len(problems) >= 20 else ''}):\n"
            f"{listed}\nFix these fields (docs/report-format.md describes each one)."
        )
    return data


def report_from_data(data: object, source: str = "report") -> Report:
    """Validate decoded JSON and build a Report; raises ReportError naming `source` on any problem."""
    data = check_data(data, source)
    return Report(
        summary=Summary(**_known(Summary, data["summary"])),
        passes_ms=[float(v) for v in data.get("passes_ms", [])],
        layers=[Layer(**_known(Layer, layer)) for layer in data.get("layers", [])],
        timeline=[TimelineEvent(**_known(TimelineEvent, e)) for e in data.get("timeline", [])],
        gpu_metrics=[MetricSeries(**_known(MetricSeries, s)) for s in data.get("gpu_metrics", [])],
        system=dict(data.get("system", {})),
        removed_nodes=list(data.get("removed_nodes", [])),
        removed_reasons={str(k): str(v) for k, v in dict(data.get("removed_reasons", {})).items()},
        kernels=[KernelRecord(**_known(KernelRecord, k)) for k in data.get("kernels", [])],
        kernel_capture=dict(data.get("kernel_capture", {})),
        format=FORMAT,
        version=VERSION,
        capabilities=Capabilities(**_known(Capabilities, data.get("capabilities", {}))),
    )


def load_report(path: str | os.PathLike[str]) -> Report:
    """Read, validate and return the report at `path` (bounded JSON: see `json_input`)."""
    file = Path(path)
    text = read_text(file, "report", "create one with `dld profile`")
    return report_from_data(parse_json(text, str(file), "report"), str(file))


def _finite(value: object, path: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ReportError(f"cannot save the report: {path} is {value}, which JSON cannot hold")
    if isinstance(value, dict):
        for key, item in value.items():
            _finite(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _finite(item, f"{path}[{i}]")


def to_data(report: Report) -> dict[str, Any]:
    """The report as JSON-ready dicts and lists; shares the report's lists (read it, do not change it).

    `Report.to_dict` (dataclasses.asdict) deep-copies everything, 10x slower on a 5,000-layer report.
    """
    data = dict(vars(report))
    data["summary"] = vars(report.summary)
    data["layers"] = [vars(layer) for layer in report.layers]
    data["timeline"] = [vars(event) for event in report.timeline]
    data["gpu_metrics"] = [vars(series) for series in report.gpu_metrics]
    data["kernels"] = [vars(record) for record in report.kernels]
    data["capabilities"] = vars(report.capabilities)
    return data


def report_to_json(report: Report) -> str:
    """The report as JSON text (validated first, so nothing written can fail to load)."""
    data = to_data(report)
    check_data(data, "report to save")  # refuse to write what load_report would refuse to read
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        _finite(data, "$")  # find where the NaN/Infinity is, for the message
        raise
    parse_json(text, "report to save")  # the reader's own limits (number sizes, nesting): never written
    return text


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` through the one atomic writer (formats/atomic_write.py), creating its folder; a
    failure is a ReportError that says what could not be written."""
    file = Path(path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ReportError(
            str(file),
            f"cannot write text holding {exc.object[exc.start : exc.end]!r}.",
            "remove the lone surrogate from the names.",
        ) from exc
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write_bytes(file, data)
    except OSError as exc:
        raise ReportError(f"{file}: cannot write ({exc.strerror or exc}).") from exc


def save_report(report: Report, path: str | os.PathLike[str]) -> Path:
    """Write `report` to `path` atomically (temporary file beside it, fsync, rename); returns the path."""
    return atomic_write_text(path, report_to_json(report))
