"""Open any profile file as a report: a dld report, a trtexec `--exportProfile` JSON or an ONNX Runtime profile.

The viewer (`dld.report(path)`) and the CLI accept all three, so a user can look at a trtexec or ONNX Runtime
profile without converting it first. Detection is by content, not by file name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.io import ReportError, load_report
from dld_jupyter.report_format.json_input import read_json
from dld_jupyter.report_format.model import Report


def detect(path: str | os.PathLike[str]) -> str:
    """ "dld-report", "trtexec" or "onnxruntime" for a readable file; "unknown" otherwise."""
    try:
        data = read_json(path)
    except ReportError:  # load_report reads it again and says what is wrong
        return "unknown"
    if isinstance(data, dict) and "format" in data:
        return "dld-report"
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if isinstance(events, list) and any(isinstance(e, dict) and e.get("cat") == "Node" for e in events[:10_000]):
        return "onnxruntime"
    first = data[0] if isinstance(data, list) and data else None
    if isinstance(first, dict) and ("count" in first or {"name", "averageMs"} <= set(first)):
        return "trtexec"
    return "unknown"


def trtexec_siblings(profile: str | os.PathLike[str]) -> dict[str, Any]:
    """Files beside `X.profile.json` named as TREx and common scripts name them: X.graph.json or X.layers.json
    (--exportLayerInfo), X.timing.json or X.times.json (--exportTimes), X.profile.metadata.json and
    X.build.metadata.json; so opening the profile alone still shows types, precisions and passes."""
    file = Path(profile)
    if not file.name.endswith(".profile.json"):
        return {}
    stem = file.with_name(file.name.removesuffix(".profile.json"))
    found: dict[str, Any] = {}
    for key, suffixes in (("layers", (".graph.json", ".layers.json")), ("times", (".timing.json", ".times.json"))):
        match = next((stem.with_name(stem.name + s) for s in suffixes if stem.with_name(stem.name + s).is_file()), None)
        if match is not None:
            found[key] = match
    meta = [stem.with_name(stem.name + s) for s in (".profile.metadata.json", ".build.metadata.json")]
    found["metadata"] = [m for m in meta if m.is_file()]
    return found


def open_report(path: str | os.PathLike[str]) -> Report:
    """Load a dld report, or import a trtexec profile (with its sibling files, see `trtexec_siblings`) or an ONNX
    Runtime profile found at `path`."""
    kind = detect(path)
    if kind == "trtexec":
        from dld_jupyter.reports.trtexec import import_trtexec

        return import_trtexec(path, **trtexec_siblings(path))
    if kind == "onnxruntime":
        from dld_jupyter.reports.ort_trace import import_ort_trace

        return import_ort_trace(path)
    try:
        return load_report(path)
    except ReportError as exc:
        if kind == "unknown" and Path(path).is_file():
            raise ReportError(
                f"{exc}\n(Accepted: a dld report, a trtexec --exportProfile JSON, or an ONNX Runtime profile JSON.)"
            ) from exc
        raise
